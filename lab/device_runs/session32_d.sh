#!/bin/bash
# Session 32 (issue 20): wide-64x128-k16's unaligned rows' form in TN and NT.  a_09ea5b2 had its float copies
# faster than its vector floats (the form operand_forms.for_rows gives it, measured in NN) on 3 of 4 TN shapes
# (1531x2039x1021 189.0 -> 160.9 us) and mixed in NT.  Grids of the shapes whose TN / NT choice is this member on
# unaligned rows (sampled, seeds 33 / 34, from the suite, held-out and fit grids: 204 / 221 such shapes under 2e10):
# the member as built (vector floats, unheld) against the float copies unheld (~rows) and held at 168 (~rowsh,
# three blocks an SM) and the vector floats held (~vech).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT/tn $OUT/nt
. lab/device_runs/prelude.sh /tmp/rtc_s32d
ROOT=$OUT
OUT=$ROOT/tn lab_ab layout_candidates ${L_S:-150} budget=${B_S:-130} members=wide-64x128-k16 \
    "vary=rows:unaligned_vectors=False;unaligned_rows=True|rowsh:unaligned_vectors=False;unaligned_rows=True;max_registers=168|vech:max_registers=168" \
    TN:4343x1090x70 TN:383x1537x771 TN:191x6145x387 TN:6143x193x387 TN:1535x1537x195 TN:191x1538x3074 \
    TN:191x770x6146 TN:383x6146x386 TN:1535x194x3074 TN:271x1089x4347 TN:543x2173x1091 TN:767x3075x769 \
    TN:383x771x6145 TN:1535x771x1537 TN:6143x99x3073 TN:135x4346x4346 TN:1531x2039x1021 TN:767x1537x3075 \
    TN:767x3073x1539 TN:271x8689x2175 TN:1535x6146x770 TN:6143x195x6145 TN:1111x3333x2222 TN:383x6147x6145
OUT=$ROOT/nt lab_ab layout_candidates ${L_S:-150} budget=${B_S:-130} members=wide-64x128-k16 \
    "vary=rows:unaligned_vectors=False;unaligned_rows=True|rowsh:unaligned_vectors=False;unaligned_rows=True;max_registers=168|vech:max_registers=168" \
    NT:191x385x6147 NT:135x1091x4345 NT:1009x1013x1019 NT:271x2173x2175 NT:543x1089x2175 NT:543x4345x547 \
    NT:1087x2173x547 NT:4343x4345x71 NT:383x3075x1537 NT:383x771x6145 NT:271x4346x2174 NT:271x2174x4346 \
    NT:6143x385x1539 NT:6143x97x6147 NT:543x4347x2173 NT:543x8689x1091 NT:1234x5678x910 NT:383x3073x6147 \
    NT:12287x98x6146 NT:191x6147x12289
OUT=$ROOT archive session32_d
