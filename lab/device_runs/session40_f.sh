#!/bin/bash
# Session 40: with the fused kernels programmatic (c3b7fda), every candidate member (fused ones included) on the
# split-K and fused picks still below cuBLAS, and on their NN forms (the table is fitted in NN with the fused
# kernels launched plainly): would a fused member now beat the split-K pick?
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s40
S="${SHAPES:-TN:700x35x2048 NN:700x35x2048 TT:700x35x2048 TN:1024x128x1024 NN:1024x128x1024 TN:2048x64x2048 NN:2048x64x2048 TN:3136x64x576 TN:196x1152x384 TT:196x1152x384}"
lab_ab layout_candidates ${L_S:-330} fused=1 budget=$(( ${L_S:-330} - 40 )) $S
archive session40_f
