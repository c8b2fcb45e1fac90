#!/bin/bash
# Session 12 (issue 20): the unaligned rows' vector floats by fewer, wider loads (lab/experiments/unaligned_pairs_ab.py).
. lab/device_runs/prelude.sh /tmp/rtc_s12
( time timeout ${AB_S:-400} python3 -m lab.experiments.unaligned_pairs_ab ${SHAPES:-8191x8193x1025 4099x4093x4091 \
    6143x2047x3071 1023x1025x1023} ) > $OUT/unaligned_pairs_ab.log 2>&1
echo "unaligned_pairs_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/unaligned_pairs_ab.log | cut -c1-260
