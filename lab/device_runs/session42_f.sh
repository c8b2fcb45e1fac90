#!/bin/bash
# Session 42: repacking the operands whose rows are not 16-byte aligned, in NT and TT (measured in NN only until now,
# sessions 6-26: it did not pay there).  In NT / TT both operands' rows run along K, regtile's unaligned-K shapes lose
# 5-15% there and cuBLAS's NT / TT kernels are faster than its NN one.  repack_ab (torch's strided copy into rows
# padded to a multiple of 4 floats plus 4, then the plan for the padded leading dimensions) on the suite's and the
# held-out sets' NT / TT shapes below cuBLAS with unaligned rows.  Limits add up to 520 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
lab_ab repack_ab ${R_S:-250} pads=c4+4 NT:2049x2047x1025 NT:3333x2222x1111 NT:1111x3333x2222 NT:2047x4097x1023 \
    NT:1023x4095x2047 NT:8191x511x2047 NT:1919x2929x3939 NT:6143x2047x3071 NT:4001x4003x4007 NT:4099x4093x4091 \
    NT:8191x8193x1025
mv $OUT/repack_ab.json $OUT/repack_ab_NT.json; mv $OUT/repack_ab.log $OUT/repack_ab_NT.log
lab_ab repack_ab ${R2_S:-200} pads=c4+4 TT:2049x2047x1025 TT:2999x7001x211 TT:129x4097x513 TT:3333x2222x1111 \
    TT:2047x4097x1023 TT:1919x2929x3939 TT:4001x4003x4007 TN:2049x2047x1025 TN:8191x8193x1025
mv $OUT/repack_ab.json $OUT/repack_ab_TT.json; mv $OUT/repack_ab.log $OUT/repack_ab_TT.log
archive session42_f
