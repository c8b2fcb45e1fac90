#!/bin/bash
# Session 26 (issue 20): for_vector_edges where the edge split takes the ragged strip (kept as before) - the
# unaligned-rows GPU tests (the 128x256 members with the path in every layout), then repack_ab's aligned plans
# with the rule and without it on a split shape (8191x8193x1025) and an unsplit one (4095^3).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s26
gpu_tests ${T_S:-150} "" tests/gpu/test_unaligned_gpu.py
lab_ab repack_ab ${AB_S:-150} pads=c4,c4-old ${SHAPES:-8191x8193x1025 4095x4095x4095}
archive session26_e
