#!/bin/bash
# Session 24 (issue 20): where the fused kernel's lean copies go in the k-tile (lab/experiments/fusedk_lean_steps_ab.py:
# dealt over the first 8, 4, 2 or 1 kk steps, and without them), then the whole GPU suite at this commit.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s24
lab_ab fusedk_lean_steps_ab ${AB_S:-150} "$@"
gpu_suite ${GPU_S:-300}
archive session24_e
