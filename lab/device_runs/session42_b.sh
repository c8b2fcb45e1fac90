#!/bin/bash
# Session 42.  Where the skinny-n stand-in starts to win (session42_a: it won at 16384x24x1024, 12288x28x1536 and
# 65536x32x256 in every transposed layout; session 41's TN probe: it lost by 1.4-2.2x at 3-13 MB of A): the tall
# skinny-n shapes between 16 and 67 MB of A, whose picks are tall-64x32, tall-64x32-k32 or splitk-128x32, in TN, NT
# and TT, against the skinny-n members and their neighbours.  Then NT 512^3's two timings (order_probe).
# Limits add up to 520 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
S="16384x32x256 16384x32x384 16384x32x512 16384x32x768 24576x32x256 32768x32x256 8192x32x1024 8192x32x2048
   4096x32x4096 12288x32x768 49152x32x256 6144x32x2048 20480x24x512 10240x24x1024 12288x24x512"
lab_ab layout_candidates ${L_S:-330} fused=1 budget=$(( ${L_S:-330} - 30 )) \
    members=tall-64x32,tall-64x32-k32,splitk-128x32,skinny-n32,skinny-n32-256,fused-256x32,fused-128x32-f1,sq-32x32 \
    $(for s in $S; do for l in TN NT TT; do echo $l:$s; done; done)
lab_ab order_probe ${O_S:-150} members=sq-32x32,plain-32x64 NT:512x512x512 NN:512x512x512 TT:512x512x512
archive session42_b
