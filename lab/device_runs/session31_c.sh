#!/bin/bash
# Session 31 (issue 20): op N with 13-16 vectors only on rows shorter than 4096 (NN's 4096x16x4096, 8192x16x8192
# and 2048x16x32768 back on skinny-n16-k32), and a skinny-n fused pick's stand-in in transposed layouts (the stream-K
# member of its tile, FUSED_STAND_IN).  The few-vector and layout GPU tests; every unfused member in NT and TN on
# the held-out shapes whose row-major pick is fused-128x32-f1 (layout_candidates: the stand-in's rule meets shapes
# it was not read from); then the suite in NN, NT and TN through regtile.sgemm against cuBLAS.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s31c
gpu_tests ${T_S:-120} "fewvec or sgemm or route or layout or stand" tests/gpu/test_fewvec_gpu.py tests/gpu/test_layouts_gpu.py
lab_ab layout_candidates ${L_S:-120} NT:4096x32x11008 TN:4096x32x11008 NT:8192x24x8192 TN:8192x24x8192
sweep ${SWEEP_S:-150}
layout_sweep NT ${SWEEP_S:-150}
layout_sweep TN ${SWEEP_S:-150}
archive session31_c
