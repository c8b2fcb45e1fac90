#!/bin/bash
# Session 13 (issue 20): the sweep with the few-vector stage kernel as a thread a position (f71ab18).
. lab/device_runs/prelude.sh /tmp/rtc_s13
sweep ${SWEEP_S:-300}
