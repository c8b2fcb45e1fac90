#!/bin/bash
# Session 12 (issue 20): the unaligned suite shapes on BK = 16 configs (wide-64x128-k16, sq-128x128-edges with
# BK = 16): twice the FFMAs between a k-tile's loads and their shared-memory store.
. lab/device_runs/prelude.sh /tmp/rtc_s12
( time timeout ${AB_S:-200} python3 -m lab.experiments.unaligned_pairs_ab variants=${VARIANTS:-member:wide-64x128-k16,sq128k16} \
    ${SHAPES:-8191x8193x1025 4099x4093x4091 6143x2047x3071} ) > $OUT/unaligned_pairs_ab.log 2>&1
echo "unaligned_pairs_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/unaligned_pairs_ab.log | cut -c1-300
