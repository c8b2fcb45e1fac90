#!/bin/bash
# Session 9, last run (issue 20): the k16 members on the vector floats for unaligned rows (heuristic.for_rows);
# the whole GPU suite, then the sweep with the committed table (session 9's sticky refit).
. lab/device_runs/prelude.sh /tmp/rtc_s9c
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s9c
gpu_suite 230
sweep 215
