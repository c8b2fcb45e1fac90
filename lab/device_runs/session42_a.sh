#!/bin/bash
# Prepared in session 41, not run there (its device time was spent).  The GPU tests that session 41's changes touch
# (the skinny-n stand-in's plans through regtile.sgemm in NT / TN / TT, the TN ring's shapes, the SASS pass, the
# layouts); the held-out sets in NT and TT with the skinny-n stand-in (layout_choice.skinny_stand_in: four shapes
# in each; session 41's figures before it: NT 1.196 / 171, TT 1.209 / 175); every member on skinny-n shapes whose NN
# pick is tall-64x32-k32 at K between 256 and 2560 (where the stand-in starts to win: not timed; at TN 65536x32x256
# it won).  Limits add up to 560 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
gpu_tests ${T_S:-200} "" tests/gpu/test_api_gpu.py tests/gpu/test_sass_pass_gpu.py tests/gpu/test_layouts_gpu.py
heldout_layout NT ${HL_S:-100}
heldout_layout TT ${HL_S:-100}
lab_ab layout_candidates ${L_S:-160} fused=1 budget=$(( ${L_S:-160} - 30 )) \
    TN:16384x24x1024 NT:16384x24x1024 TT:16384x24x1024 TN:12288x28x1536 NT:12288x28x1536 TT:12288x28x1536 \
    NT:65536x32x256 TT:65536x32x256
archive session42_a
