#!/bin/bash
# Session 25 (issue 20), the library as it lands (8f0cb36: session25_f's less the 512^3 entry): the suite's sweep,
# held-out 2 (3136x64x576 moves to fused-32x32 in the refit); for the record, 512^3 on both members of the tie and
# 196x1152x384 (an M edge: the lean copies now off) with the loop on.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
sweep 200
heldout_sweeps 75 2
lab_ab variants_ab 90 "sk@splitk-128x128:" "sq@sq-32x32:" "lean@fused-32x32-k8:lean_copies=True" "nolean@fused-32x32-k8:" 512x512x512 196x1152x384
archive session25_g
