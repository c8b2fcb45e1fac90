#!/bin/bash
# Session 33 (issue 20): the fused kernel's lean copies in the layouts' forms.  Its GPU tests (every member in NT, TN
# and TT, lean and load_tile blocks mixed), then the fused picks of recipe b in NT and TN (and six in TT) with the
# lean copies (as built, where every block runs them: whole tiles on aligned rows) against ~nolean.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s33f
gpu_tests ${T_S:-150} "" tests/gpu/test_fusedk_gpu.py
lab_ab layout_candidates ${L_S:-150} budget=${B_S:-130} fused=1 members=fused-32x32,fused-32x32-k8,fused-32x64 \
    "vary=nolean:lean_copies=False" NT:2048x24x384 TN:2048x24x384 NT:3072x24x384 TN:3072x24x384 NT:3072x32x384 TN:3072x32x384 NT:4096x24x384 TN:4096x24x384 NT:2048x48x384 TN:2048x48x384 NT:4096x32x384 TN:4096x32x384 NT:6144x24x384 TN:6144x24x384 NT:1536x96x384 TN:1536x96x384 NT:96x1536x384 TN:96x1536x384 NT:8192x24x384 TN:8192x24x384 NT:3072x64x384 TN:3072x64x384 NT:6144x32x384 TN:6144x32x384 NT:1536x128x384 TN:1536x128x384 NT:4096x48x384 TN:4096x48x384 NT:2048x96x384 TN:2048x96x384 NT:192x1024x384 TN:192x1024x384 NT:768x256x384 TN:768x256x384 NT:96x2048x384 TN:96x2048x384 NT:196x1152x384 TN:196x1152x384 NT:768x256x512 TN:768x256x512 NT:8192x32x384 TN:8192x32x384 NT:3136x64x576 TN:3136x64x576 NT:64x128x16384 TN:64x128x16384 \
    TT:196x1152x384 TT:8192x32x384 TT:3072x64x384 TT:768x256x384 TT:3136x64x576 TT:1536x128x384
archive session33_f
