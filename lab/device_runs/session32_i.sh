#!/bin/bash
# Prepared in session 32 and not run (the session's device time ran out): the next session's first candidate.
# Session 32 (issue 20): NT's wide-64x128-k16 beside C's last column (n % 128 == 1).  k16_form gave it the float
# copies held; the NT grid of d_420d4bf had no last-column shape, and 255x257x65537 ran 222.8 -> 229.0 us (f_4ee491f).
# The member as built (float copies held, the last column at 168) against session 31's form (~vec: the vector floats
# at the same cap), on eight NT shapes with unaligned rows and n % 128 == 1.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s32i
lab_ab layout_candidates ${L_S:-100} budget=${B_S:-80} members=wide-64x128-k16 \
    "vary=vec:unaligned_rows=False;unaligned_vectors=True" \
    NT:255x257x65537 NT:1023x1025x1023 NT:2047x769x2047 NT:777x897x777 NT:383x1025x3071 NT:1535x513x1535 \
    NT:129x1153x4097 NT:3071x257x1023
archive session32_i
