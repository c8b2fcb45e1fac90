#!/bin/bash
# Session 8, seventh run (issue 20): skinny-m48 (48x64x24, 4x8 threads) is bound on shared-memory loads at
# 48x2048x8192 (short-scoreboard 1.70 an issued instruction, session 7's ncu: a 4x8 thread tile loads 12
# floats for 32 FFMAs a k).  Wider thread tiles on the same 48 rows, interleaved with cuBLAS: 48x128x24 with
# 8x8 threads (16 floats for 64 FFMAs; 211 registers) or 4x16 (20 for 64; 210), and 48x64x48 4x8.
. lab/device_runs/prelude.sh /tmp/rtc_s8m
A=bn=128+tm=8+tn=8+warps=auto; B=bn=128+tm=4+tn=16+warps=auto
( timeout 200 python3 -m lab.experiments.tiny_longk_kernels \
    48x2048x8192:skinny-m48,skinny-m48+$A,skinny-m48+$B,skinny-m48+bk=48 \
    48x4096x4096:skinny-m48,skinny-m48+$A,skinny-m48+$B,skinny-m48+bk=48 \
    48x1024x16384:skinny-m48,skinny-m48+$A,skinny-m48+$B,skinny-m48+bk=48 \
    40x4096x8192:skinny-m48,skinny-m48+$A,skinny-m48+$B ) > $OUT/m48.log 2>&1
echo "m48: rc $?"; grep -v Warn $OUT/m48.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-160
