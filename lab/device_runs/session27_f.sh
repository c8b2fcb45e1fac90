#!/bin/bash
# Session 27 (issue 20): the mixed row alignments through the plan (session 27 e's ragged_cost_ab saw B padded with
# A and C packed come out wrong).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
gpu_tests ${T_S:-200} "mixed_row_alignment" tests/gpu/test_unaligned_gpu.py
grep -E "rel err" $OUT/pytest.log | cut -c1-300 | head -30
archive session27_f
