#!/bin/bash
# Session 11 (issue 20): one test and one branch over both operands' float4 loads (emit_ptx.both_float4), which
# changes every PTX kernel's text: the A/B against each operand's own test (lab/experiments/both_float4_ab.py),
# the sweep, then the whole GPU suite.
. lab/device_runs/prelude.sh /tmp/rtc_s11e
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s11e
( time timeout 170 python3 -m lab.experiments.both_float4_ab ${SHAPES:-4096x4096x4096 8192x128x8192 512x16384x4096 \
    1024x1024x1024 64x4096x4096 512x512x512 7000x1760x1760} ) > $OUT/both_float4_ab.log 2>&1
echo "both_float4_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/both_float4_ab.log | cut -c1-220
sweep 150
gpu_suite 260
