#!/bin/bash
# Session 43: NN repacks too since 6c5f2d8 (b_6c5f2d8: 7 of its 8 other shapes faster).  The suite and the held-out
# sets in NN through it (NN not swept since session 40); then every member on padded rows (layout_candidates
# padded=1: the GEMM a repacking plan runs, without its copies) on the repacked shapes still below cuBLAS: is
# there a faster member for the aligned GEMM than the pick?  Limits add up to 540 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s43
sweep ${SWEEP_S:-140}
heldout_layout NN ${HL_S:-140}
lab_ab layout_candidates ${C_S:-240} padded=1 budget=200 NT:2049x2047x1025 TT:2049x2047x1025 TT:2047x4097x1023 \
    NT:3333x2222x1111 TT:2999x7001x211 NT:6143x2047x3071 TT:1919x2929x3939
archive session43_c
