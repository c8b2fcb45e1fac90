#!/bin/bash
# Session 25 (issue 20), prototypes only (the library is session 24's): the op T streaming prototype
# (lab/experiments/stream_t_proto.py) with a warp's lane groups split over the vectors (H groups of V / H
# vectors, the same k rows) instead of over k rows only, so that 17-64 vectors keep 32-64 sums a thread.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
lab_ab stream_t_proto 200 "variants=h2:L=16,W=8,U=4,MINB=2,H=2;h2u6:L=16,W=8,U=6,MINB=1,H=2;l8h2:L=8,W=8,U=4,MINB=2,H=2;l8h4:L=8,W=8,U=4,MINB=2,H=4;l8h4w4:L=8,W=4,U=4,MINB=4,H=4" \
    32x4096x4096 32x1024x131072 24x4096x8192 32x11008x4096 32x4096x11008
mv $OUT/stream_t_proto.json $OUT/stream_t32.json 2>/dev/null; mv $OUT/stream_t_proto.log $OUT/stream_t32.log
lab_ab stream_t_proto 150 "variants=l8h4:L=8,W=8,U=4,MINB=2,H=4;l8h4w4:L=8,W=4,U=4,MINB=4,H=4;l8h4u6:L=8,W=8,U=6,MINB=1,H=4" \
    48x2048x8192 64x4096x4096 64x4096x16384
mv $OUT/stream_t_proto.json $OUT/stream_t64.json 2>/dev/null; mv $OUT/stream_t_proto.log $OUT/stream_t64.log
archive session25_a
