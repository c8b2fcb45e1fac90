#!/bin/bash
# Session 38 (issue 20): stream-K's range length on TN's cp.async ring.  Every TN shape of the suite, the held-out sets
# and the layout grid whose plan runs a stream-K member as the ring (operand_forms.for_ring), 43 shapes: the plan
# (ranges of >= 8 k-tiles) against the same config with ranges of >= 16 and >= 32 k-tiles, with whole tiles only, and
# its two-stage loop (lab/experiments/streamk_iters_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
lab_ab streamk_iters_ab ${L_S:-300} iters=12,16,24,32 ${SHAPES:-TN:512x512x512 TN:127x511x257 TN:197x768x768 TN:18944x20x3584 TN:10240x28x2560 TN:77x3072x768 TN:16384x30x4096 TN:32x3072x3072 TN:3136x96x384 TN:13824x24x5120 TN:1500x384x384 TN:257x1280x1280 TN:2048x256x512 TN:333x777x999 TN:640x360x1200 TN:96x512x384 TN:192x256x384 TN:768x64x384 TN:3072x64x512 TN:384x768x384 TN:768x384x384 TN:96x2048x768 TN:192x1024x768 TN:192x2048x384 TN:384x512x768 TN:768x256x768 TN:768x512x384 TN:1536x128x768 TN:1536x256x384 TN:3072x64x768 TN:3072x128x384 TN:2048x192x384 TN:4096x96x384 TN:768x512x512 TN:1536x256x512 TN:3072x64x1024 TN:3072x128x512 TN:384x384x1536 TN:384x768x768 TN:768x768x384 TN:1536x192x768 TN:6144x96x384 TN:96x2048x1536}
archive session38_b
