#!/bin/bash
# Session 47: op T strips past N read float4s where N is a multiple of 4 (codegen/emit_sgemv.VEC_BLOCK_TEST; before,
# only a whole strip inside N did).  The GEMV, few-vector and batched GEMV GPU tests, memcheck on the new cases (GEMV
# and few-vector scripts, exact-size buffers), the A/B against the float4 test of before (partial_strip_ab), and the
# batched A/B on head dims of 48-112 (shapes=narrow: the tiling strips against one strip, now float4).  Limits add up
# to 480 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47b
gpu_tests ${T_S:-150} "" tests/gpu/test_sgemv_gpu.py tests/gpu/test_fewvec_gpu.py tests/gpu/test_batched_gemv_gpu.py
( timeout ${M_S:-60} compute-sanitizer --tool memcheck --error-exitcode 9 env SGEMV_CASES=strip \
    python3 tests/gpu/sgemv_memcheck_script.py ) > $OUT/memcheck_strip.log 2>&1
echo "memcheck strip: rc $?"; grep -E "WRONG|ERROR SUMMARY|done" $OUT/memcheck_strip.log | head -5
( timeout ${F_S:-90} compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/fewvec_memcheck_script.py ) \
    > $OUT/memcheck_fewvec.log 2>&1
echo "memcheck fewvec: rc $?"; grep -E "WRONG|ERROR SUMMARY|done" $OUT/memcheck_fewvec.log | head -5
lab_ab partial_strip_ab ${A_S:-100}
lab_ab batched_gemv_ab ${N_S:-80} shapes=narrow
archive session47_b
