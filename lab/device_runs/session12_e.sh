#!/bin/bash
# Session 12 (issue 20): the sweep with the refit that takes the fastest member where the kept one is below cuBLAS
# (8191x8193x1025 -> sq-128x128-edges).
. lab/device_runs/prelude.sh /tmp/rtc_s12
sweep ${SWEEP_S:-200}
