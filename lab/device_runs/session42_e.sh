#!/bin/bash
# Session 42, after the skinny-n stand-in's new bounds (layout_choice.skinny_stand_in: 36 MiB of A in NT / TT, 48 MiB
# with m >= 10240 in TN, n of 20-32, picks tall-64x32 / tall-64x32-k32 / splitk-128x32).  The API GPU tests (the
# stand-in with unaligned rows, TN's ring on 8192x30x1024); the 52 shape-layouts of benchmarks/shapes-skinny-probe.json
# that the rule moves (45 not timed before), regtile.sgemm's plan ("lib", now the stand-in) against the old picks;
# held-out TN (not swept since session 41's first stand-in); every member on TT / NN 8192x128x8192 and TT 4096x128x4096
# (below cuBLAS in session 41).  Limits add up to 540 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
gpu_tests ${T_S:-100} "skinny or ring" tests/gpu/test_api_gpu.py
lab_ab layout_candidates ${L_S:-170} fused=1 budget=$(( ${L_S:-170} - 30 )) \
    members=tall-64x32,tall-64x32-k32,splitk-128x32,skinny-n32,skinny-n32-256 \
    NT:12288x20x1536 NT:12288x24x1536 NT:12288x32x1536 NT:16384x20x1024 NT:16384x24x1024 NT:24576x20x1536 NT:24576x24x1536 NT:24576x32x1536 NT:4096x24x4096 NT:4096x32x4096 NT:6144x20x1536 NT:6144x20x3072 NT:6144x20x6144 NT:6144x24x1536 NT:6144x24x3072 NT:6144x24x6144 NT:6144x32x1536 NT:6144x32x3072 NT:6144x32x6144 NT:8192x20x2048 NT:8192x24x2048 NT:8192x32x2048 TN:12288x20x1536 TN:12288x24x1536 TN:12288x32x1536 TN:16384x20x1024 TN:16384x24x1024 TN:24576x20x1536 TN:24576x24x1536 TN:24576x32x1536 TT:12288x20x1536 TT:12288x24x1536 TT:12288x32x1536 TT:16384x20x1024 TT:16384x24x1024 TT:24576x20x1536 TT:24576x24x1536 TT:24576x32x1536 TT:4096x24x4096 TT:4096x32x4096 TT:6144x20x1536 TT:6144x20x3072 TT:6144x20x6144 TT:6144x24x1536 TT:6144x24x3072 TT:6144x24x6144 TT:6144x32x1536 TT:6144x32x3072 TT:6144x32x6144 TT:8192x20x2048 TT:8192x24x2048 TT:8192x32x2048
mv $OUT/layout_candidates.json $OUT/layout_candidates_moved.json; mv $OUT/layout_candidates.log $OUT/layout_candidates_moved.log
heldout_layout TN ${HL_S:-110}
lab_ab layout_candidates ${M_S:-130} budget=$(( ${M_S:-130} - 30 )) TT:8192x128x8192 NN:8192x128x8192 TT:4096x128x4096
archive session42_e
