#!/bin/bash
# Session 30 (issue 20): what cuBLAS runs where regtile.sgemm is below it in NT and TN (the suite's layout sweeps,
# docs/data/session30/c_4041268), and in NN on the same shapes (torch.profiler: lab/experiments/cublas_kernels.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s30e
S=docs/data/session30/c_4041268
lab_ab cublas_kernels 90 --layout NT --sweep $S/shape-sweep-NT.json
mv $OUT/cublas_kernels.log $OUT/cublas_kernels_NT.log
lab_ab cublas_kernels 120 --layout TN --sweep $S/shape-sweep-TN.json
mv $OUT/cublas_kernels.log $OUT/cublas_kernels_TN.log
SH=$(python3 -c "
import json
s=set()
for L in ('NT','TN'):
    s|={f\"{r['m']}x{r['n']}x{r['k']}\" for r in json.load(open('$S/shape-sweep-'+L+'.json')) if r['x_cublas']<1}
print(' '.join(sorted(s)))")
lab_ab cublas_kernels 120 --sweep docs/data/session30/b_d12f53e/shape-sweep.json $SH
archive session30_e
