#!/bin/bash
# Session 39 (issue 20): where the PTX one-pass kernel and the CUDA C split-K partial kernel let the next kernel be
# scheduled (griddepcontrol.launch_dependents / cudaTriggerProgrammaticLaunchCompletion), back to back: every suite
# plan (four layouts) and held-out TN / NT plan that runs one of them, against itself without PDL ("plain") and with the
# trigger at its kernel's exit ("late") (lab/experiments/streamk_iters_ab.py pdl=1; session38_e did this for the
# stream-K ranges kernel and took the trigger at exit there).  Then the held-out TN set with the ranges kernel's new
# trigger (session 38 did not run it).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
lab_ab streamk_iters_ab ${L_S:-330} pdl=1 iters= ${SHAPES:-NN:256x256x256 NN:384x384x384 NN:3x5x7 NN:16x768x768 NN:768x64x768 NN:128x768x768 NN:8x1024x1024 NN:1024x16x1024 NN:64x1024x1024 NN:1024x128x1024 NN:2048x64x2048 NN:4096x16x4096 NN:8192x16x8192 NN:2048x16x32768 NN:16384x32x16384 NN:700x35x2048 NN:65x33x4097 TN:256x256x256 TN:384x384x384 TN:3x5x7 TN:768x8x768 TN:16x768x768 TN:768x64x768 TN:128x768x768 TN:8x1024x1024 TN:1024x16x1024 TN:64x1024x1024 TN:1024x128x1024 TN:2048x8x2048 TN:2048x64x2048 TN:700x35x2048 TN:65x33x4097 NT:256x256x256 NT:384x384x384 NT:3x5x7 NT:16x768x768 NT:768x64x768 NT:128x768x768 NT:1024x16x1024 NT:64x1024x1024 NT:1024x128x1024 NT:16x2048x2048 NT:2048x64x2048 NT:4096x16x4096 NT:8192x16x8192 NT:16x4096x1024 NT:16x1024x4096 NT:2048x16x32768 NT:700x35x2048 NT:65x33x4097 TT:256x256x256 TT:384x384x384 TT:3x5x7 TT:768x8x768 TT:16x768x768 TT:768x64x768 TT:128x768x768 TT:1024x16x1024 TT:64x1024x1024 TT:1024x128x1024 TT:2048x8x2048 TT:16x2048x2048 TT:2048x64x2048 TT:16x4096x1024 TT:16x1024x4096 TT:700x35x2048 TT:65x33x4097 TN:784x192x32 TN:49x1280x320 TN:2048x512x13 TN:3136x64x576 TN:784x128x1152 TN:196x256x2304 TN:49x512x4608 TN:77x768x768 TN:8x1024x4096 TN:784x192x768 TN:196x384x1536 TN:49x2304x768 NT:784x192x32 NT:49x960x160 NT:49x1280x320 NT:2048x512x13 NT:11008x16x4096 NT:197x768x768 NT:3136x64x576 NT:784x128x1152 NT:196x256x2304 NT:49x512x4608 NT:77x768x768 NT:784x192x768 NT:196x384x1536 NT:49x2304x768 NT:49x768x3072 NT:8192x16x4096}
heldout_layout TN ${HL_S:-120}
archive session39_a
