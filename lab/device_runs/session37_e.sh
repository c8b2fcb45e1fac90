#!/bin/bash
# Session 37 (issue 20): the ring of four stages on the NN / NT / TT picks that TN's ring form (operand_forms.for_ring)
# would take there (4x4 tiles up to 64x64, K of more than 16 k-tiles, 8 tiles or more): where the layout copies A or
# B^T transposed, its aligned rows take 4-byte cp.asyncs in the ring (16-byte loads in the two-stage loop); where
# those rows are unaligned, both forms copy a float at a time.  The plan as committed against the ring
# (lab/experiments/unaligned_ring_ab.py, forms r).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37e
SHAPES=${SHAPES:-"NN:384x384x384 NN:512x512x512 NN:127x511x257 NN:18944x20x3584 NN:10240x28x2560 NN:77x3072x768 NN:16384x30x4096 NN:32x3072x3072 NN:3136x96x384 NN:13824x24x5120 NN:49x1280x320 NN:1500x384x384 NN:2048x256x512 NN:333x777x999 NN:640x360x1200 NT:384x384x384 NT:512x512x512 NT:127x511x257 NT:18944x20x3584 NT:10240x28x2560 NT:77x3072x768 NT:16384x30x4096 NT:32x3072x3072 NT:3136x96x384 NT:13824x24x5120 NT:49x1280x320 NT:1500x384x384 NT:2048x256x512 NT:333x777x999 NT:640x360x1200 TT:384x384x384 TT:512x512x512 TT:127x511x257 TT:197x768x768 TT:18944x20x3584 TT:10240x28x2560 TT:77x3072x768 TT:16384x30x4096 TT:32x3072x3072 TT:3136x96x384 TT:13824x24x5120 TT:49x1280x320 TT:1500x384x384 TT:257x1280x1280 TT:2048x256x512 TT:333x777x999 TT:640x360x1200"}
lab_ab unaligned_ring_ab ${L_S:-300} stages=4 forms=r $SHAPES
archive session37_e
