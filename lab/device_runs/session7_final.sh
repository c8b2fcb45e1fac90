#!/bin/bash
# Session 7's last run on the H100 (the k16 members and the refit table of session7_refit.sh committed):
# the whole GPU suite, then the shape sweep (regtile.sgemm as committed against cuBLAS, 123 shapes).
# The SGEMV path and the call path did not change this session (their session-6 figures stand).
. lab/device_runs/prelude.sh /tmp/rtc_s7f
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s7f
gpu_suite 220
sweep 240
