#!/bin/bash
# Session 37 (issue 20): the cp.async ring (stages 3 / 4, 16-byte copies where rows are aligned) on the small
# latency-bound shapes where cuBLAS's TN / NT kernels (cutlass simt *_8x5 nt_align1: five stages) stay ahead of every
# member.  In TN, A^T's rows run along M, so both operands reach shared memory untransposed: the ring's copies are
# 16-byte where the rows are aligned (in NN, A's transposed copy is a 4-byte cp.async a float: what lost in session 7).
# Each member as committed against its ring of 3 / 4 stages (without the SASS pass, which has no LDGSTS forms), the
# plan regtile.sgemm builds and cuBLAS in the layout (lab/experiments/layout_candidates.py members= vary=).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37a
MEMBERS=${MEMBERS:-sq-32x32,wide-32x64,tall-64x32,sq-64x64,sq-64x64-4x8,sq-64x64-4x8-k32,wide-32x64-k32,tall-64x32-k32,splitk-32x64-f8,splitk-32x64-f4,splitk-64x64-k4,splitk-128x128,splitk-64x128}
VARY=${VARY:-"r3:stages=3;sass_pass=False;hoist_head=False|r4:stages=4;sass_pass=False;hoist_head=False"}
SHAPES=${SHAPES:-"TN:700x35x2048 TN:127x511x257 TN:512x512x512 TN:1024x128x1024 TN:2048x64x2048 TN:784x128x1152 TN:3136x64x576 NT:512x512x512 NT:3136x64x576 NN:700x35x2048 NN:512x512x512"}
lab_ab layout_candidates ${L_S:-480} members=$MEMBERS "vary=$VARY" budget=${BUDGET:-420} $SHAPES
archive session37_a
