#!/bin/bash
# Session 47's review mends: the new GPU test of op T past N on unaligned rows, the GEMV memcheck cases (the 4-column
# last strip now on a float4-past-N config), and lab/experiments/batched_pdl_ab.py rewritten to time the trigger at
# entry against the library's at exit (on the held-out batched set, within its budget).  Limits add up to 150 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47g
gpu_tests ${T_S:-60} "strip_past_n" tests/gpu/test_sgemv_gpu.py
( timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 env SGEMV_CASES=strip \
    python3 tests/gpu/sgemv_memcheck_script.py ) > $OUT/memcheck_strip.log 2>&1
echo "memcheck strip: rc $?"; grep -E "WRONG|ERROR SUMMARY|done" $OUT/memcheck_strip.log | head -5
lab_ab batched_pdl_ab 50 suite=benchmarks/shapes-batched-heldout.json budget=35
archive session47_g
