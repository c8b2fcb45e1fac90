#!/bin/bash
# Session 24 (issue 20): the library with config.lean_copies (the fused members' lean copies, off where no block
# can run them): the fused, family and API GPU tests, memcheck over the fused tests, the A/B (the plan, the member
# with and without the loop), then the suite's sweep and held-out sets 1 and 4 (the sets with fused plans).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s24
gpu_tests ${T_S:-150} "fused or test_sgemm_with or api" tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py \
    tests/gpu/test_api_gpu.py
( time timeout ${MC_S:-120} compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_fusedk_gpu.py ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck.log | tail -3
lab_ab fusedk_spread_ab ${AB_S:-90} 32768x32x4096 16384x32x16384 4096x32x11008 65536x32x2048 8192x24x8192 \
    196x1152x384 32771x33x4097
sweep ${SWEEP_S:-170}
heldout_sweeps ${H_S:-100} 1 4
archive session24_d
