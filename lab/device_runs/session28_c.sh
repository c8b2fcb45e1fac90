#!/bin/bash
# Session 28 (issue 20): without the vector trim and operand_forms.for_vector_edges (both were there for the tiles
# across a ragged vector bound, which now take the interior paths) - the unaligned / API / edge / C-staging / layout
# GPU tests, the SGEMM memcheck script (its compiles warmed first, then under compute-sanitizer), ragged_extents_ab
# (N ragged on aligned rows now runs the aligned shape's kernel), then the suite's sweep.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s28
gpu_tests ${T_S:-150} "test_" tests/gpu/test_unaligned_gpu.py tests/gpu/test_api_gpu.py tests/gpu/test_edges_gpu.py \
    tests/gpu/test_c_staged_gpu.py tests/gpu/test_layouts_gpu.py
( timeout 60 python3 tests/gpu/sgemm_memcheck_script.py ) > $OUT/memcheck_warm.log 2>&1; echo "warm: rc $?"
( time timeout ${MC_S:-170} compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/sgemm_memcheck_script.py ) \
    > $OUT/memcheck_sgemm.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|WRONG|done|real|Invalid" $OUT/memcheck_sgemm.log | head -8
lab_ab ragged_extents_ab ${AB_S:-60}
sweep ${SWEEP_S:-150}
archive session28_c
