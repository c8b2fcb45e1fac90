#!/bin/bash
# Session 31 (issue 20): the transposed route's bounds (12 vectors on B^T, 64 MB of A^T above 4 vectors) through
# the few-vector GPU tests; then NN's small n (op N over A) with 8-16 vectors against the member and op N's
# neighbours (fewvec_bench --candidates: in TN the member streamed A^T at 84-93% of copy where NN's op N ran at
# about 60%); then the suite in NT and TN through regtile.sgemm against cuBLAS's same layout.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s31b
gpu_tests ${T_S:-100} "fewvec or sgemm or route" tests/gpu/test_fewvec_gpu.py
lab_ab fewvec_bench ${B_S:-150} --candidates $OUT/fewvec_NN_n.json --rounds 7 --shapes \
"4096,16,4096;8192,16,8192;2048,16,32768;65536,16,1024;16384,16,4096;4096,12,8192;5120,8,5120;8192,8,8192;\
16384,8,16384;2048,8,2048;4096,16,2048"
layout_sweep NT ${SWEEP_S:-190}
layout_sweep TN ${SWEEP_S:-190}
archive session31_b
