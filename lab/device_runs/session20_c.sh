#!/bin/bash
# Session 20 (issue 20): the fused split-K kernel's interior copy path (load_tile_inside): its GPU tests and the
# family's fused members, compute-sanitizer memcheck over the 128x32 cases, then the path on and off against
# cuBLAS (lab/experiments/fusedk_interior_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s20
( time timeout ${T_S:-150} python3 -m pytest -q -p no:cacheprovider -n 14 tests/gpu/test_fusedk_gpu.py \
    tests/gpu/test_family_gpu.py -k "fused or test_sgemm_with" ) > $OUT/pytest.log 2>&1
echo "tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest.log | tail -8
( time timeout ${MC_S:-150} compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_fusedk_gpu.py -k "128x32 or 48kb" ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/memcheck.log | tail -3
( time timeout ${AB_S:-200} python3 -m lab.experiments.fusedk_interior_ab "$@" ) > $OUT/fusedk_interior.log 2>&1
echo "fusedk_interior: rc $?"; cut -c1-330 $OUT/fusedk_interior.log | grep -v "^$"
archive session20_c
