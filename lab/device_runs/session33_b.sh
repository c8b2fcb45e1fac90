#!/bin/bash
# Session 33 (issue 20): the fused kernel with A^T and B^T read by float4 (codegen/emit_fusedk.py, session 33).  Its
# GPU tests (every member in NT, TN, TT on ragged shapes), then every candidate member, fused ones included, on the
# 23 fused-32x32/-k8/32x64 picks in NT and TN (recipe a's shapes), then the skinny-n fused picks (a sample of 10 with
# the suite's and held-out ones) in NT and TN against their stand-ins.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s33b
gpu_tests ${T_S:-200} "" tests/gpu/test_fusedk_gpu.py
lab_ab layout_candidates ${L_S:-200} budget=${B_S:-180} fused=1 \
    NN:196x1152x384 NT:2048x24x384 TN:2048x24x384 NT:3072x24x384 TN:3072x24x384 NT:3072x32x384 TN:3072x32x384 NT:4096x24x384 TN:4096x24x384 NT:2048x48x384 TN:2048x48x384 NT:4096x32x384 TN:4096x32x384 NT:6144x24x384 TN:6144x24x384 NT:1536x96x384 TN:1536x96x384 NT:96x1536x384 TN:96x1536x384 NT:8192x24x384 TN:8192x24x384 NT:3072x64x384 TN:3072x64x384 NT:6144x32x384 TN:6144x32x384 NT:1536x128x384 TN:1536x128x384 NT:4096x48x384 TN:4096x48x384 NT:2048x96x384 TN:2048x96x384 NT:192x1024x384 TN:192x1024x384 NT:768x256x384 TN:768x256x384 NT:96x2048x384 TN:96x2048x384 NT:196x1152x384 TN:196x1152x384 NT:768x256x512 TN:768x256x512 NT:8192x32x384 TN:8192x32x384 NT:3136x64x576 TN:3136x64x576 NT:64x128x16384 TN:64x128x16384
mv $OUT/layout_candidates.json $OUT/layout_candidates_fused.json; mv $OUT/layout_candidates.log $OUT/layout_candidates_fused.log
lab_ab layout_candidates ${L2_S:-150} budget=${B2_S:-130} fused=1 \
    members=fused-128x32,fused-128x32-f1,fused-256x32,skinny-n32,skinny-n32-256,tall-64x32-k32,skinny-n16-k32 \
    NT:32768x24x384 TN:32768x24x384 NT:4096x32x11008 TN:4096x32x11008 NT:8192x24x8192 TN:8192x24x8192 NT:4096x32x16384 TN:4096x32x16384 NT:6144x32x12288 TN:6144x32x12288 NT:8192x24x16384 TN:8192x24x16384 NT:32768x32x4096 TN:32768x32x4096 NT:24576x20x12288 TN:24576x20x12288 NT:16384x32x16384 TN:16384x32x16384 NT:32768x20x16384 TN:32768x20x16384
archive session33_b
