#!/bin/bash
# Session 33 (issue 20): with fused members in every layout, every member (fused ones included) on the small NT/TN
# losses of session 32's sweeps, to see whether a fused member would beat the pick there; then the suite and all 195
# held-out shapes in TT (never swept before).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s33e
lab_ab layout_candidates ${L_S:-110} budget=${B_S:-90} fused=1 TN:700x35x2048 NT:512x512x512 TN:512x512x512 \
    TN:127x511x257 TN:1024x128x1024 TN:2048x64x2048 TN:784x128x1152 TN:49x1280x320 TN:3136x64x576 NT:3136x64x576
layout_sweep TT ${SWEEP_S:-110}
heldout_layout TT ${HL_S:-110}
archive session33_e
