#!/bin/bash
# Session 20 (issue 20): the SASS pass's tile-end step (sass/tile_end.py): the pass's GPU tests and the fused
# kernel's GPU tests (a 48 KB-line tile), then the step on and off against cuBLAS (lab/experiments/spread_tile_end.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s20
gpu_tests ${T_S:-200} "not (test_member or test_cp_async) or 128x256 or 256x128" tests/gpu/test_sass_pass_gpu.py \
    tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py
lab_ab spread_tile_end ${AB_S:-330} "$@"
archive session20_b
