#!/bin/bash
# Run in session 40 at a258874 only (then emit_fusedk.PROGRAMMATIC was off; since c3b7fda streamk_iters_ab fused=1
# times other variants).  Prepared in session 39, not run there (its device time was spent): the fused split-K
# kernels launched programmatic
# (codegen/emit_fusedk.PROGRAMMATIC, off in the library; streamk_iters_ab fused=1) against the plan (launched plainly),
# on the 22 suite and held-out shapes (four layouts) whose plan runs a fused member, back to back and in CUDA graphs.
# Session 39 found the split-K partial kernel 8.9% faster back to back launched programmatic (j_5ba4120).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s40
S="${SHAPES:-NN:4096x16x4096 NN:8192x16x8192 NN:2048x16x32768 NN:16384x32x16384 NN:32768x32x4096 NT:4096x16x4096 NT:8192x16x8192 NT:2048x16x32768 NN:11008x16x4096 NN:4096x32x11008 NN:8192x24x8192 NN:3136x64x576 NN:196x1152x384 NN:8192x16x4096 TN:3136x64x576 TN:196x1152x384 NT:11008x16x4096 NT:3136x64x576 NT:196x1152x384 NT:8192x16x4096 TT:3136x64x576 TT:196x1152x384}"
lab_ab_both streamk_iters_ab ${L_S:-150} pdl=1 iters= fused=1 $S
archive session40_a
