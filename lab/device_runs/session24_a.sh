#!/bin/bash
# Session 24 (issue 20): the fused split-K kernel's lean copies (codegen/emit_fusedk.SPREAD_COPIES at that commit; config.lean_copies since): its GPU tests
# and the family's fused members, compute-sanitizer memcheck over the fused tests, then the copies on and off
# against cuBLAS (lab/experiments/fusedk_spread_ab.py), twice on the n = 32 shapes.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s24
gpu_tests ${T_S:-150} "fused or test_sgemm_with" tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py
( time timeout ${MC_S:-150} compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_fusedk_gpu.py ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck.log | tail -3
lab_ab fusedk_spread_ab ${AB_S:-200} "$@"
mv $OUT/fusedk_spread_ab.log $OUT/fusedk_spread_ab_1.log; mv $OUT/fusedk_spread.json $OUT/fusedk_spread_1.json
lab_ab fusedk_spread_ab ${AB2_S:-120} 32768x32x4096 16384x32x16384 4096x32x11008 65536x32x2048
archive ${ARCHIVE:-session24_a}
