#!/bin/bash
# Session 46's last code: op T's rows in flight from the batch's blocks an SM (8 only at <= 2, codegen/batch_choice
# GEMV_DEEP_BLOCKS, fitted on runs c and e).  The A/B on p V batches none of the fitting saw (shapes=check), the narrow
# head dims again, the batched GEMV GPU tests (with the review's strided vector and strided C), memcheck on the GEMV
# batches, and the decode rows of all three batched sets.  Limits add up to 310 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s46f
lab_ab batched_gemv_ab ${C_S:-50} shapes=check
mv $OUT/batched_gemv_ab.json $OUT/batched_gemv_ab_check.json; mv $OUT/batched_gemv_ab.log $OUT/batched_gemv_ab_check.log
lab_ab batched_gemv_ab ${N_S:-40} shapes=narrow
gpu_tests ${T_S:-60} "" tests/gpu/test_batched_gemv_gpu.py
batched_memcheck ${M_S:-60} gemv
for s in shapes-batched shapes-batched-heldout shapes-batched-heldout-2; do
    lab_ab batched_sweep ${D_S:-30} suite=benchmarks/$s.json only=decode
    mv $OUT/batched_sweep.json $OUT/decode_$s.json; mv $OUT/batched_sweep.log $OUT/decode_$s.log
done
archive session46_f
