#!/bin/bash
# Session 39 (issue 20): the GEMV and few-vector kernels' trigger after their wait (lab/experiments/gemv_trigger_ab.py;
# session39_c moved the one-pass PTX kernel's there) on every NN suite and held-out shape regtile.sgemm routes to them:
# back to back as the sweep times, then as CUDA graphs of 20 calls.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
S="${SHAPES:-NN:1x768x768 NN:768x8x768 NN:1024x1x1024 NN:1x2048x2048 NN:2048x8x2048 NN:16x2048x2048 NN:4096x1x4096 NN:8x4096x4096 NN:1x5120x5120 NN:5120x8x5120 NN:16x5120x5120 NN:8192x1x8192 NN:8x8192x8192 NN:16x4096x1024 NN:16x1024x4096 NN:16x16384x4096 NN:16x4096x16384 NN:1x7680x2560 NN:1x6144x2048 NN:1x512x500000 NN:2x4096x16384 NN:4x1024x65536 NN:16x4096x4096 NN:8192x8x8192 NN:1024x4x500000 NN:7680x2x2560 NN:65536x16x1024 NN:16384x8x16384 NN:1x11008x4096 NN:1x4096x11008 NN:1x14336x4096 NN:1x32000x4096 NN:4x11008x4096 NN:8x4096x14336 NN:12x5120x13824 NN:32000x8x4096 NN:1x10240x2560 NN:1x2560x10240 NN:2x18944x3584 NN:3x4096x14336 NN:6x4544x4544 NN:3584x12x3584 NN:1x28672x8192 NN:1x8192x28672 NN:2x24576x3072 NN:5x16384x4096 NN:10x8192x2048 NN:1x3072x3072 NN:28672x8x8192 NN:2048x3x8192 NN:1x6144x4096 NN:4x14336x4096 NN:16x128256x2048 NN:2x13824x5120 NN:12x8192x3072 NN:1x16384x2048 NN:8x2048x16384 NN:2x3072x8192 }"
lab_ab gemv_trigger_ab ${L_S:-230} $S
mv $OUT/gemv_trigger_ab.json $OUT/gemv_trigger_ab_stream.json; mv $OUT/gemv_trigger_ab.log $OUT/gemv_trigger_ab_stream.log
lab_ab gemv_trigger_ab ${L_S:-230} graph=1 $S
archive session39_e
