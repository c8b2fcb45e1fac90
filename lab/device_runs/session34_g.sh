#!/bin/bash
# Session 34 (issue 20): after fused-128x16 and its table: the whole GPU suite; on A^T (TN) fused-128x16 against its
# stand-in skinny-n16-k32 and skinny-n16 on the n = 13-16 shapes (heuristic.FUSED_STAND_IN_A_T); the n 9-16 sweep in
# TN and TT (session34_f's list, $OUT/n16-sweep.json made again).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34g
gpu_suite ${G_S:-330}
lab_ab layout_candidates ${L_S:-80} fused=1 members=fused-128x16,skinny-n16-k32,skinny-n16 TN:4096x16x4096 \
    TN:8192x16x8192 TN:11008x16x4096 TN:2048x16x32768 TN:2048x13x4096 TN:16384x16x4096 TN:4096x16x2048 TT:8192x16x8192
cp docs/data/session34/f_4919b2f/n16-sweep.json $OUT/
_sweep "n16 TN" ${S_S:-60} sweep-n16-TN.json sweep-n16-TN.md sweep-n16-TN.log --suite $OUT/n16-sweep.json --layout TN
_sweep "n16 TT" ${S_S:-60} sweep-n16-TT.json sweep-n16-TT.md sweep-n16-TT.log --suite $OUT/n16-sweep.json --layout TT
archive session34_g
