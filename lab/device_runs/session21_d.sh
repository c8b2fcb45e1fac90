#!/bin/bash
# Session 21 (issue 20): the tile-end step's free registers (sass/tile_end.free_bunch): the pass's GPU tests and the
# 128x256 / 256x128 / 64x256 members' family, unaligned and stream-K GPU tests, then the renaming on and off
# against cuBLAS (lab/experiments/free_tile_end.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s21
( time timeout ${T_S:-200} python3 -m pytest -q -p no:cacheprovider -n 14 tests/gpu/test_sass_pass_gpu.py \
    tests/gpu/test_family_gpu.py tests/gpu/test_unaligned_gpu.py tests/gpu/test_streamk_gpu.py \
    -k "not (test_member or test_cp_async) or 128x256 or 256x128 or 64x256" ) > $OUT/pytest.log 2>&1
echo "tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest.log | tail -8
( time timeout ${AB_S:-300} python3 -m lab.experiments.free_tile_end "$@" ) > $OUT/free_tile_end.log 2>&1
echo "free_tile_end: rc $?"; cut -c1-330 $OUT/free_tile_end.log | grep -v "^$"
archive session21_d
