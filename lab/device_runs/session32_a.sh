#!/bin/bash
# Session 32 (issue 20): the unaligned rows' forms in NT and TN.  regtile's NT runs its unaligned-K shapes 5-20%
# slower than its NN (1919x2929x3939 1110 against 939 us: sq-128x128 at one block an SM with the float copies in NT,
# two with the vector floats in NN), TN 1531x2039x1021 31% slower (e_6f3839a).  Ten members, each as the plan builds
# it and with the other unaligned form (~vec: the vector floats, ~rows: the float copies), in NT, TN and two NN.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s32a
MEMBERS=sq-128x128,wide-64x128-k16,tall-128x64-k16,wide-128x256,wide-128x256-noedge,tall-256x128,wide-64x256,sq-64x64,tall-128x64,wide-64x128
VARY="vec:unaligned_rows=False;unaligned_vectors=True|rows:unaligned_vectors=False;unaligned_rows=True"
lab_ab layout_candidates ${L_S:-300} members=$MEMBERS "vary=$VARY" budget=${B_S:-270} \
    NT:1919x2929x3939 NT:1111x3333x2222 NT:3333x2222x1111 NT:2999x7001x211 NT:2049x2047x1025 TN:1111x3333x2222 \
    TN:1531x2039x1021 TN:2049x2047x1025 TN:3001x3001x64 NN:1919x2929x3939 NN:1111x3333x2222 NT:4001x4003x4007 \
    NT:6143x2047x3071 NT:8191x8193x1025
archive session32_a
