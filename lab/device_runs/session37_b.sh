#!/bin/bash
# Session 37 (issue 20): the cp.async ring (stages 3 / 4) on every TN suite and held-out shape whose pick is a small
# PTX member (block tile <= 64x64, two stages; the skinny members and 3x5x7 left out): the plan as committed, without
# the SASS pass, and as each ring (lab/experiments/unaligned_ring_ab.py; forms r: aligned rows take 16-byte copies).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37a
SHAPES=${SHAPES:-"TN:128x128x128 TN:196x384x64 TN:784x192x32 TN:49x960x160 TN:196x576x96 TN:3136x144x24 TN:2048x512x13 TN:127x511x257 TN:256x256x256 TN:12544x96x16 TN:49x1280x320 TN:384x384x384 TN:12544x32x144 TN:2048x128x256 TN:3136x288x96 TN:784x576x192 TN:3136x384x96 TN:3136x96x384 TN:49x768x3072 TN:197x768x768 TN:12544x64x147 TN:50x50x50000 TN:512x512x512 TN:77x3072x768 TN:1500x384x384 TN:333x777x999 TN:2048x256x512 TN:4096x4096x16 TN:640x360x1200 TN:128x3072x768 TN:32x3072x3072 TN:768x512x768 TN:56x5120x1280 TN:384x1024x1024 TN:1024x640x640 TN:4096x320x320 TN:257x1280x1280 TN:31x257x65536 TN:128x2048x2048 TN:2048x64x4096 TN:512x1024x1024 TN:10240x28x2560 TN:63x63x250000 TN:100x100x100000 TN:513x129x16383 TN:18944x20x3584 TN:13824x24x5120 TN:16384x30x4096"}
lab_ab unaligned_ring_ab ${L_S:-570} stages=3,4 forms=r $SHAPES
archive session37_b
