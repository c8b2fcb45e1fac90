#!/bin/bash
# Session 31 (issue 20): every unfused member in NT and TN on the held-out shapes whose NN pick is fused-32x32-k8
# (196x1152x384 ran plain-32x32 at 0.47-0.48x cuBLAS there, e_6f3839a; 3136x64x576 takes the same fallback).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s31f
lab_ab layout_candidates ${L_S:-120} NT:196x1152x384 TN:196x1152x384 NT:3136x64x576 TN:3136x64x576
archive session31_f
