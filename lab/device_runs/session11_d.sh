#!/bin/bash
# Session 11 (issue 20): the fix-up tree's one call site against its two (fixup_ab only=two_sites) on the big
# shapes whose last partial wave runs the ranges kernel, after the sweep at ad9f012 put them 0.5-2% below
# session 10's (4096^3 2601.6 -> 2626.5 us).
. lab/device_runs/prelude.sh /tmp/rtc_s11
( time timeout 300 python3 -m lab.experiments.fixup_ab only=two_sites ${SHAPES:-4096x4096x4096 512x16384x4096 \
    2048x4096x16384 3072x3072x3072 8192x8192x8192} ) > $OUT/fixup_ab_big.log 2>&1
echo "fixup_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/fixup_ab_big.log | cut -c1-300
