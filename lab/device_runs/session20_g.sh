#!/bin/bash
# Session 20 (issue 20): the tile-end step's stores part (the next tile's shared stores if-converted and spread
# above the branch): the pass's GPU tests and the 128x256 / 256x128 family members', then the step with the stores,
# with the loads alone and off, against cuBLAS (lab/experiments/spread_tile_end.py).  Ran on the prototype's tree
# (3687b1f); the stores part is reverted since (measured no faster).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s20
( time timeout ${T_S:-200} python3 -m pytest -q -p no:cacheprovider -n 14 tests/gpu/test_sass_pass_gpu.py \
    tests/gpu/test_family_gpu.py tests/gpu/test_unaligned_gpu.py tests/gpu/test_streamk_gpu.py \
    -k "not (test_member or test_cp_async) or 128x256 or 256x128" ) > $OUT/pytest.log 2>&1
echo "tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest.log | tail -8
( time timeout ${AB_S:-330} python3 -m lab.experiments.spread_tile_end "$@" ) > $OUT/spread_tile_end.log 2>&1
echo "spread_tile_end: rc $?"; cut -c1-330 $OUT/spread_tile_end.log | grep -v "^$"
archive session20_g
