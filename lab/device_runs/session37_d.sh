#!/bin/bash
# Session 37 (issue 20): the whole GPU suite with TN's ring form (operand_forms.for_ring); then the ring on the same
# small members' picks in TT, which the form leaves out (A^T untransposed as in TN, B^T's copy transposed: a 4-byte
# cp.async a float, as A's in NN).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37a
gpu_suite ${G_S:-330}
lab_ab unaligned_ring_ab ${L_S:-90} stages=4 forms=r TT:512x512x512 TT:127x511x257 TT:16384x30x4096 TT:3136x96x384 \
    TT:2048x256x512 TT:32x3072x3072 TT:1500x384x384 TT:49x1280x320 TT:13824x24x5120
archive session37_d
