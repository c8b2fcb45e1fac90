#!/bin/bash
# Session 10, last run (issue 20): the committed code (the fix-up tree, the held fused column) - the whole
# GPU suite, then the shape sweep.
. lab/device_runs/prelude.sh /tmp/rtc_s10h
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s10h
gpu_suite 260
sweep 200
