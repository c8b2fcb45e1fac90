#!/bin/bash
# Session 13 (issue 20): the few-vector kernels' streamed float4 loads with an L2 prefetch size (.L2::256B / 128B,
# evict-first or the read-only path), against the plans as committed and cuBLAS (lab/experiments/l2_prefetch_ab.py).
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${AB_S:-200} python3 -m lab.experiments.l2_prefetch_ab variants=${VARIANTS:-cs256,nc256,cs128} ${SHAPES:-} ) \
    > $OUT/l2_prefetch_ab.log 2>&1
echo "l2_prefetch_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/l2_prefetch_ab.log | cut -c1-330
