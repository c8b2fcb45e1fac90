#!/bin/bash
# Session 15: C staged wherever ldc % 4 != 0 (heuristic.for_c).  The GPU tests of the paths it touches (C staged on
# every PTX member, unaligned rows, the API, edges, last column, family, layouts), then the suite's sweep and the
# held-out sets 3 and 4 through regtile.sgemm.  One archive ($OUT/session15_c.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s15
( time timeout ${T_S:-260} python3 -m pytest -q -p no:cacheprovider -n 14 tests/gpu/test_c_staged_gpu.py \
    tests/gpu/test_unaligned_gpu.py tests/gpu/test_api_gpu.py tests/gpu/test_edges_gpu.py tests/gpu/test_last_col_gpu.py \
    tests/gpu/test_family_gpu.py tests/gpu/test_layouts_gpu.py ) > $OUT/pytest_gpu_subset.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu_subset.log | head; grep -E "passed|failed" $OUT/pytest_gpu_subset.log | tail -1
sweep ${SWEEP_S:-120}
sweep_suite benchmarks/shapes-heldout-4.json heldout4 ${H_S:-80}
sweep_suite benchmarks/shapes-heldout-3.json heldout3 ${H_S:-80}
archive session15_c
