#!/bin/bash
# Session 26 (issue 20): unaligned rows on the big tiles - the plan as committed against repacking both unaligned
# operands (c4), A alone (a4) or B alone (b4) into 16-byte aligned rows first (torch's strided copy), each with the
# aligned plan timed alone on the copies; 4099x4096x4091 beside 4099x4093x4091 (ragged N on an aligned ldb).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s26
lab_ab repack_ab ${AB_S:-400} pads=c4,a4,b4 ${SHAPES:-4099x4093x4091 4099x4096x4091 2047x4097x1023 1023x4095x2047 \
    4095x4095x4095 1111x3333x2222 5555x555x5555 8191x8193x1025}
archive session26_c
