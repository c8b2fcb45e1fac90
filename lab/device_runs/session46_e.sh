#!/bin/bash
# Session 46, after the third batched set: op T's strips tile a matrix narrower than 128 columns (head dims 48-112)
# instead of one strip of scalar loads.  The batched GEMV GPU tests, memcheck on the GEMV batches (80- and 96-column
# ones added), the A/B on those head dims (shapes=narrow), and the third set's decode rows again.  Limits add up to
# 280 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s46e
gpu_tests ${T_S:-90} "" tests/gpu/test_batched_gemv_gpu.py
batched_memcheck ${M_S:-70} gemv
lab_ab batched_gemv_ab ${A_S:-60} shapes=narrow
lab_ab batched_sweep ${D_S:-60} suite=benchmarks/shapes-batched-heldout-2.json only=decode
archive session46_e
