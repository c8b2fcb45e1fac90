#!/bin/bash
# Session 23 (issue 20), prototypes only (the library is session 22's): (1) op N through shared memory
# (lab/experiments/stream_n_proto.py, session 22_h's call) on the 16-vector shapes and, with 32-vector variants,
# on 32768x32x4096 and 16384x32x16384; (2) the op T prototype's own form beside the library's kernel and the
# library's kernel without its L2 prefetch, in one call (where the 4-5% between them goes).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
lab_ab stream_n_proto 200
mv $OUT/stream_n_proto.json $OUT/stream_n16.json 2>/dev/null; mv $OUT/stream_n_proto.log $OUT/stream_n16.log
lab_ab stream_n_proto 150 "variants=w8r2:W=8,R=2,U=1,MINB=1;w4r2m2:W=4,R=2,U=1,MINB=2;w8r2u2:W=8,R=2,U=2,MINB=1;w4r3:W=4,R=3,U=1,MINB=1" \
    32768x32x4096 16384x32x16384
mv $OUT/stream_n_proto.json $OUT/stream_n32.json 2>/dev/null; mv $OUT/stream_n_proto.log $OUT/stream_n32.log
T_SHAPES="16x4096x4096 16x16384x4096 16x4096x16384 16x2048x2048 16x5120x5120 12x8192x3072"
lab_ab stream_t_proto 120 "variants=l16w8:L=16,W=8,U=4,MINB=2" $T_SHAPES
lab_ab variants_ab 120 "np:prefetch_steps=0" $T_SHAPES
archive session23_a
