#!/bin/bash
# Session 30 (issue 20): the suite in the layouts real workloads call it in, against cuBLAS in the same layout -
# NT (nn.Linear: y = x W^T) and TN (a weight gradient: dW = dY^T X) - through regtile.sgemm as committed
# (shape_sweep --layout; the table is fitted on NN, the layout does not change the member).  First the sweep's
# operand test in every layout (tests/gpu/test_shape_sweep_gpu.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s30c
gpu_tests ${T_S:-90} "sweep" tests/gpu/test_shape_sweep_gpu.py
layout_sweep NT ${SWEEP_S:-200}
layout_sweep TN ${SWEEP_S:-200}
archive session30_c
