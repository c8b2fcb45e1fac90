#!/bin/bash
# Session 39 (issue 20): session39_a's trigger A/B again, through CUDA graphs of 20 calls on each variant's stream
# (streamk_iters_ab graph=1; session 7 measured the triggers that way on the H100 and found the trigger at entry
# faster than none), on one-pass, split-K and stream-K plans (for these "early": the ranges kernel's trigger at entry,
# session 38's change undone).  Then the held-out NT set with the ranges kernel's trigger at exit.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
lab_ab streamk_iters_ab ${L_S:-240} pdl=1 iters= graph=1 ${SHAPES:-NN:700x35x2048 NN:65x33x4097 NN:768x64x768 NN:512x512x512 NN:64x1024x1024 NN:1024x128x1024 NN:256x256x256 NN:384x384x384 NN:3x5x7 NN:1009x1013x1019 NN:1023x1025x1023 NN:50x50x50000 NN:32x11008x4096 NN:2000x2000x2000 TN:784x192x32 TN:2048x512x13 TN:700x35x2048 TN:1024x128x1024 TN:2048x64x2048 TN:784x128x1152 TN:49x1280x320 TN:3072x64x512 TN:384x768x384 TN:512x512x512 TN:256x256x256 NT:196x256x2304 NT:128x768x768 NT:2048x512x13 TT:700x35x2048 TT:2048x64x2048 TT:384x384x384}
heldout_layout NT ${HL_S:-120}
archive session39_b
