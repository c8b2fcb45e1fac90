#!/bin/bash
# Session 21 (issue 20): the tile-end step's free registers (sass/tile_end.free_bunch): the pass's GPU tests and the
# 128x256 / 256x128 / 64x256 members' family, unaligned and stream-K GPU tests, then the renaming on and off
# against cuBLAS (lab/experiments/free_tile_end.py).  Ran on the prototype's tree (86aa7a5), which has that module
# and the FREE_TILE_END switch; both are gone since (measured slower).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s21
gpu_tests ${T_S:-200} "not (test_member or test_cp_async) or 128x256 or 256x128 or 64x256" \
    tests/gpu/test_sass_pass_gpu.py tests/gpu/test_family_gpu.py tests/gpu/test_unaligned_gpu.py tests/gpu/test_streamk_gpu.py
lab_ab free_tile_end ${AB_S:-300} "$@"
archive session21_d
