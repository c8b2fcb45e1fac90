#!/bin/bash
# Session 40, run at ea44d3f only (fused_exit=1 and "programmatic" name the forms of then; since c3b7fda the library's
# form is d's "programmatic_exit" and streamk_iters_ab fused=1 times the other two).
# The fused split-K kernels launched programmatic with no trigger of their own (streamk_iters_ab
# fused_exit=1: the next call scheduled as the blocks exit) beside a_a258874's form (fused=1: the trigger right after
# the wait, which ran the NN 128x16 / 128x32 members 12-53% slower), on session40_a's 22 shapes, both timings.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s40
S="${SHAPES:-NN:4096x16x4096 NN:8192x16x8192 NN:2048x16x32768 NN:16384x32x16384 NN:32768x32x4096 NT:4096x16x4096 NT:8192x16x8192 NT:2048x16x32768 NN:11008x16x4096 NN:4096x32x11008 NN:8192x24x8192 NN:3136x64x576 NN:196x1152x384 NN:8192x16x4096 TN:3136x64x576 TN:196x1152x384 NT:11008x16x4096 NT:3136x64x576 NT:196x1152x384 NT:8192x16x4096 TT:3136x64x576 TT:196x1152x384}"
lab_ab_both streamk_iters_ab ${L_S:-200} pdl=1 iters= fused=1 fused_exit=1 $S
archive session40_d
