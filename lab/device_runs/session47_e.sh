#!/bin/bash
# Session 47: batched one-pass kernels trigger the next call at exit (codegen/emit_ptx.pdl_entry; run d: 68 batched
# shapes 0.985x the time, NT 8 x 64x4096x14336 1568.0 -> 1277.7 us).  The API, layout, PDL and batched GEMV GPU tests,
# then the three batched sets through regtile.sgemm as committed.  Limits add up to 330 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47e
gpu_tests ${T_S:-150} "" tests/gpu/test_api_gpu.py tests/gpu/test_layouts_gpu.py tests/gpu/test_pdl_gpu.py \
    tests/gpu/test_batched_gemv_gpu.py
lab_ab batched_sweep ${H_S:-60} suite=benchmarks/shapes-batched-heldout-2.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout2.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout2.log
batched_sets ${H_S:-60} ${B_S:-60}
archive session47_e
