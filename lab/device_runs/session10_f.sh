#!/bin/bash
# Session 10, sixth run (issue 20): the shape sweep of the committed code.
. lab/device_runs/prelude.sh /tmp/rtc_s10
sweep 170
