#!/bin/bash
# Session 12 (issue 20): both_float4 re-landed with the SASS pass's IMAD.HI pair fixed (8ef8401): the sweep,
# then the whole GPU suite (vec4 with the pass among it: wrong at 705ba54).
. lab/device_runs/prelude.sh /tmp/rtc_s12
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s12
sweep ${SWEEP_S:-220}
gpu_suite ${SUITE_S:-330}
