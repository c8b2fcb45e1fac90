#!/bin/bash
# Session 39 (issue 20): the CUDA C split-K partial kernel's trigger after its main loop, before its stores ("mid",
# streamk_iters_ab mid=1), against at entry (the plan) and at exit ("late"): session39_a / _b found exit faster back to
# back (2.1%) and slower in CUDA graphs (5.2%).  Six split-K plans, back to back, then in graphs.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
S="${SHAPES:-NN:700x35x2048 NN:1024x128x1024 NN:65x33x4097 TN:700x35x2048 TN:2048x64x2048 NT:128x768x768}"
lab_ab_both streamk_iters_ab ${L_S:-90} pdl=1 iters= mid=1 $S
archive session39_i
