#!/bin/bash
# Session 20 (issue 20): the tile-end step's stores part (the next tile's shared stores if-converted and spread
# above the branch): the pass's GPU tests and the 128x256 / 256x128 family members', then the step with the stores,
# with the loads alone and off, against cuBLAS (lab/experiments/spread_tile_end.py).  Ran on the prototype's tree
# (3687b1f); the stores part is reverted since (measured no faster).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s20
gpu_tests ${T_S:-200} "not (test_member or test_cp_async) or 128x256 or 256x128" \
    tests/gpu/test_sass_pass_gpu.py tests/gpu/test_family_gpu.py tests/gpu/test_unaligned_gpu.py tests/gpu/test_streamk_gpu.py
lab_ab spread_tile_end ${AB_S:-330} "$@"
archive session20_g
