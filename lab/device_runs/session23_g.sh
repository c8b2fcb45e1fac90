#!/bin/bash
# Session 23 (issue 20): the few-vector op N kernel with its float4 loop pipelined (FewVecNConfig.pipelined: the
# next step's matrix floats loaded before this step's FMAs) against the committed plans, 2-16 vectors.
# Runs at b8547f8 only: the field was removed after the run (docs/data/session23/README.md).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
lab_ab variants_ab ${AB_S:-200} "p:pipelined=True" "p1:pipelined=True;unroll=1" "p2m3:pipelined=True;min_blocks=3" \
    2048x16x32768 4096x16x4096 8192x16x8192 65536x16x1024 4096x12x8192 8192x8x8192 5120x8x5120 1024x4x500000 7680x2x2560
archive session23_g
