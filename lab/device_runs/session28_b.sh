#!/bin/bash
# Session 28 (issue 20): tiles across a ragged vector bound on the interior paths (ptx_edges.clamp_setup) - the
# device toolchain's registers and spills of every pinned PTX kernel (session28_a: sq-128x128 spilled there, not on
# the CPU machine), the edge / unaligned / layout / API / family / last-column / C-staging GPU tests, the SGEMM
# memcheck script on exact-size buffers, then ragged_extents_ab (N ragged against aligned, one bench) and
# vector_trim_ab (is the trim still worth its launch).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s28
lab_ab family_registers ${REG_S:-90}
gpu_tests ${T_S:-200} "test_" tests/gpu/test_edges_gpu.py tests/gpu/test_unaligned_gpu.py tests/gpu/test_layouts_gpu.py \
    tests/gpu/test_api_gpu.py tests/gpu/test_family_gpu.py tests/gpu/test_last_col_gpu.py tests/gpu/test_c_staged_gpu.py
( time timeout ${MC_S:-120} compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/sgemm_memcheck_script.py ) \
    > $OUT/memcheck_sgemm.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|WRONG|done|real" $OUT/memcheck_sgemm.log | head -8
lab_ab ragged_extents_ab ${AB_S:-80}
lab_ab vector_trim_ab ${TRIM_S:-100} ${SHAPES:-1111x3333x2222 1919x2929x3939 1024x50257x768 5555x555x5555 3001x3001x64}
archive session28_b
