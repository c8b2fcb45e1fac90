#!/bin/bash
# Session 22 (issue 20): op T through shared memory (FewVecTConfig.smem_vectors, the rule's pick for 9-16
# vectors): the few-vector GPU tests and memcheck, then the plans against what ran before - the heuristic's
# member (13-16 vectors: "member@table") and the L1 few-vector kernel (9-12: "l1") - and cuBLAS.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
fewvec_checks 300
( time timeout 300 python3 -m lab.experiments.variants_ab "member@table:" 16x4096x4096 16x5120x5120 \
    16x16384x4096 16x4096x16384 16x2048x2048 16x8192x8192 16x1024x4096 16x4096x1024 13x8192x2048 16x2048x8192 \
    14x4096x4096 ) > $OUT/variants_16.log 2>&1
echo "variants 13-16: rc $?"; cut -c1-330 $OUT/variants_16.log | grep -v "^$"
( time timeout 200 python3 -m lab.experiments.variants_ab "member@table:" \
    "l1:smem_vectors=False;threads_x=32;threads_y=8;unroll=4;min_blocks=2" 12x4096x8192 9x4096x4096 \
    12x2048x16384 10x8192x8192 11x4096x4096 ) > $OUT/variants_9_12.log 2>&1
echo "variants 9-12: rc $?"; cut -c1-330 $OUT/variants_9_12.log | grep -v "^$"
archive session22_b
