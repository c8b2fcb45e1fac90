#!/bin/bash
# Session 31 (issue 20): the few-vector route over the transposed operand - NT with m of 2-16 (nn.Linear's batched
# decode: op N over B^T's rows, C stored transposed) and TN with n of 2-16 (op T over A^T's columns).  First the
# few-vector and API GPU tests and the few-vector memcheck script (the transposed cases added), then per shape the
# route's kernel (regtile.sgemm's plan), the family member the plan ran before, and cuBLAS in the same layout
# (lab/experiments/fewvec_bench --layout): the suite's shapes of each kind and smaller ones near the route's bounds.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s31a
fewvec_checks ${T_S:-150}
lab_ab fewvec_bench ${B_S:-170} --layout NT $OUT/fewvec_NT.json --rounds 7 --shapes \
"2,4096,16384;4,1024,65536;8,4096,4096;8,8192,8192;16,4096,4096;16,5120,5120;16,16384,4096;16,4096,16384;\
8,1024,1024;16,2048,2048;16,4096,1024;16,1024,4096;16,768,768;4,1024,1024;8,2048,2048;2,2048,2048;12,4096,4096"
mv $OUT/fewvec_bench.log $OUT/fewvec_NT.log
lab_ab fewvec_bench ${B_S:-170} --layout TN $OUT/fewvec_TN.json --rounds 7 --shapes \
"7680,2,2560;1024,4,500000;4096,16,4096;5120,8,5120;8192,16,8192;8192,8,8192;2048,16,32768;65536,16,1024;\
16384,8,16384;768,8,768;1024,16,1024;2048,8,2048;2048,16,2048;4096,8,2048;4096,4,4096;2048,2,8192"
mv $OUT/fewvec_bench.log $OUT/fewvec_TN.log
archive session31_a
