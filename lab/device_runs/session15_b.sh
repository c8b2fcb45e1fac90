#!/bin/bash
# Session 15: C's unaligned rows through shared memory (config.c_staged, heuristic.for_c).  The GPU tests of the
# paths it touches, then every shape with N % 4 != 0 of the suite and the held-out sets: the plan as it builds now
# with and without the staging (variants "staged", "unstaged"; one of them is the plan) and cuBLAS.  One archive.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s15
( time timeout ${T_S:-200} python3 -m pytest -q -p no:cacheprovider -n 14 tests/gpu/test_unaligned_gpu.py tests/gpu/test_c_staged_gpu.py \
    tests/gpu/test_api_gpu.py tests/gpu/test_edges_gpu.py tests/gpu/test_last_col_gpu.py tests/gpu/test_family_gpu.py \
    tests/gpu/test_layouts_gpu.py ) > $OUT/pytest_gpu_subset.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu_subset.log | head; tail -1 $OUT/pytest_gpu_subset.log
timeout ${AB_S:-300} python3 -m lab.experiments.variants_ab "staged:c_staged=True" "unstaged:c_staged=False" ${SHAPES:-2999x7001x211 3001x3001x64 \
    333x33333x333 2047x4097x1023 1023x4095x2047 1024x50257x768 129x4097x513 1234x5678x910 8191x511x2047 5555x555x5555 \
    1111x3333x2222 8191x8193x1025 4099x4093x4091 6143x2047x3071 4097x4097x4097 2049x2047x1025 1009x1013x1019 \
    1023x1025x1023 255x257x65537 127x511x257 17x8191x4099 513x129x16383 4095x4095x4095 999x999x999} 2>&1 | tee $OUT/c_staged_ab.log | grep -v "^ "
archive session15_b
