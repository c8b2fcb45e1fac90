#!/bin/bash
# Session 33 (issue 20): fused picks run themselves in every layout (commit 2 of the session).  The whole GPU suite,
# then every member (fused ones included) on the shapes whose layout choice this moved and recipe b did not time:
# 16384x64x512 (a skinny-n fused pick, fused-128x32-f1, with no stand-in of its width) in NT and TN, and TT on five
# shapes.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s33c
gpu_suite ${G_S:-380}
lab_ab layout_candidates ${L_S:-120} budget=${B_S:-100} fused=1 NT:16384x64x512 TN:16384x64x512 \
    TT:196x1152x384 TT:8192x32x384 TT:3072x24x384 TT:768x256x512 TT:16384x64x512 TT:2048x96x384
archive session33_c
