#!/bin/bash
# Session 37 (issue 20): a second run of the TN ring form's A/B at the session's last commit, on the 17 suite and
# held-out shapes operand_forms.for_ring takes: the plan (now the ring of four stages, "lib") against its two-stage loop
# ("two", unaligned_ring_ab's baseline where the plan runs the ring) and the ring of three stages ("ring3r").
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37g
SHAPES=${SHAPES:-"TN:384x384x384 TN:512x512x512 TN:127x511x257 TN:197x768x768 TN:18944x20x3584 TN:10240x28x2560 TN:77x3072x768 TN:16384x30x4096 TN:32x3072x3072 TN:3136x96x384 TN:13824x24x5120 TN:49x1280x320 TN:1500x384x384 TN:257x1280x1280 TN:2048x256x512 TN:333x777x999 TN:640x360x1200"}
lab_ab unaligned_ring_ab ${L_S:-200} stages=3 forms=r $SHAPES
archive session37_g
