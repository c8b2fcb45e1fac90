#!/bin/bash
# Session 20 (issue 20): the fused split-K kernel's tile variants on the skinny-n (n = 32) shapes, against the
# plans as committed (fused-128x32-f1) and cuBLAS (lab/experiments/variants_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s20
V="bk16:bk=16 t4x8:tm=4;tn=8 b256:bm=256;warps=None b64k64:bm=64;tm=4;bk=64;warps=None b64t8:bm=64;tm=8;warps=None mb2:min_blocks=2 mb3:min_blocks=3"
( time timeout ${AB_S:-300} python3 -m lab.experiments.variants_ab $V 32768x32x4096 16384x32x16384 4096x32x11008 ) > $OUT/variants.log 2>&1
echo "variants: rc $?"; cut -c1-300 $OUT/variants.log | grep -v "^$" | tail -40
archive session20_a
