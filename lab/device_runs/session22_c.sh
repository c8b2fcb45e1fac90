#!/bin/bash
# Session 22 (issue 20): op T through shared memory after the fixes (the staged vectors read with __ldcg after
# the PDL wait; a loop a path; 3 rows in flight where 4 spilled): the few-vector GPU tests and memcheck, the
# PDL/API tests, then the plans against the heuristic's member (member@table), on 13-16 and 9-12 vectors.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
fewvec_checks 300
gpu_tests 200 "" tests/gpu/test_pdl_gpu.py tests/gpu/test_layouts_gpu.py
( time timeout 300 python3 -m lab.experiments.variants_ab "member@table:" "u4:unroll=4" 16x4096x4096 \
    16x5120x5120 16x16384x4096 16x4096x16384 16x2048x2048 16x8192x8192 13x8192x2048 15x4096x4096 \
    14x4096x4096 15x8192x8192 12x4096x8192 9x4096x4096 ) > $OUT/variants.log 2>&1
echo "variants: rc $?"; cut -c1-330 $OUT/variants.log | grep -v "^$"
archive session22_c
