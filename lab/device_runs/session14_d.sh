#!/bin/bash
# Session 14: the 128x256 members on aligned rows with ragged M / N (repack_ab at 2600cc4 had wide-128x256-noedge
# 25% slower on 4099x4093x4091 with aligned copies than on the unaligned rows): the plan with and without the
# edge split (es / ne) and with the unaligned rows' vector floats (uv), lab/experiments/variants_ab.py.
. lab/device_runs/prelude.sh /tmp/rtc_s14
( time timeout ${AB_S:-300} python3 -m lab.experiments.variants_ab "es:edge_split=True" "ne:edge_split=False" \
    "uv:unaligned_vectors=True" ${SHAPES:-6000x2000x3000 4099x4096x4096 2040x4100x16000 4000x4000x4000 4096x4096x4096} ) > $OUT/variants_ab.log 2>&1
echo "variants_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/variants_ab.log | cut -c1-900
