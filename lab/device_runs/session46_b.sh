#!/bin/bash
# Session 46: batches of m == 1 / n == 1 GEMMs as one batched GEMV launch (codegen/batch_choice.batched_gemv,
# sgemv_config.BATCHED_DOC).  The new GPU tests with the API's and the op T forms', memcheck on the GEMV batches and
# on the GEMM batches run a left unchecked (SHAPES from 12 on: a's memcheck stopped at its limit after 50 of 64
# cases), the A/B of the candidate configs on decode shapes against torch.bmm and the GEMM member of before, then
# both batched sets (regtile.sgemm against torch.bmm).  Limits add up to 560 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s46b
gpu_tests ${T_S:-130} "" tests/gpu/test_batched_gemv_gpu.py tests/gpu/test_api_gpu.py tests/gpu/test_sgemv_t_forms_gpu.py
batched_memcheck ${M_S:-80} gemv
( timeout ${R_S:-70} compute-sanitizer --tool memcheck --error-exitcode 9 python3 lab/device_runs/batched_memcheck.py \
    first=12 ) > $OUT/memcheck_rest.log 2>&1
echo "memcheck rest: rc $?"; grep -cE " ok$" $OUT/memcheck_rest.log; grep -E "WRONG|ERROR SUMMARY" $OUT/memcheck_rest.log
lab_ab batched_gemv_ab ${A_S:-160}
batched_sets ${H_S:-60} ${B_S:-60}
archive session46_b
