#!/bin/bash
# Session 32 (issue 20), after a_09ea5b2: two rules the unaligned rows' forms suggested, on grids.
# nt/: where NT's choice is sq-128x128 (which runs at one block an SM on B^T: layouts.with_layout's register refusal),
#   37 shapes (18 aligned, 19 unaligned; sampled with seed 32 from the suite, held-out and fit grids' 156 such shapes
#   under 2e10 FLOP/2, plus the held-out 1919x2929x3939 and 2999x7001x211): sq-128x128 against the six members the table
#   picks without it.
# tn/: where TN's choice is tall-128x64-k16 on unaligned rows (its float copies held at 168 registers,
#   operand_forms.FLOAT_COPIES_HELD_K16, measured in NN), 18 of the 60 such shapes: the vector floats beside, held at 168 (~vec) and not (~vec0).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT/nt $OUT/tn
. lab/device_runs/prelude.sh /tmp/rtc_s32b
ROOT=$OUT
OUT=$ROOT/nt lab_ab layout_candidates ${L_S:-240} budget=${B_S:-220} \
    members=sq-128x128,tall-128x64-k16,tall-256x128,wide-128x256,wide-128x256-noedge,wide-64x128-k16,wide-64x256 \
    NT:1024x4096x32 NT:65536x96x24 NT:65536x96x32 NT:4096x2048x32 NT:32768x256x32 NT:128x32768x64 NT:16384x1024x32 \
    NT:16384x1024x64 NT:65536x128x128 NT:512x16384x128 NT:6143x3075x97 NT:1024x8192x256 NT:8192x2048x128 \
    NT:16384x512x256 NT:6143x1537x387 NT:2048x8192x256 NT:2999x7001x211 NT:4344x8688x136 NT:2171x2174x1090 \
    NT:4343x4347x273 NT:8687x4347x137 NT:8687x1089x547 NT:2171x8689x275 NT:4343x8689x139 NT:1234x5678x910 \
    NT:3072x12288x192 NT:1535x12291x385 NT:6143x1539x769 NT:12287x6146x98 NT:8688x8688x136 NT:8687x2175x545 \
    NT:6144x12288x192 NT:3071x3074x1538 NT:6143x6147x385 NT:6143x12289x195 NT:12287x12289x99 NT:1919x2929x3939
OUT=$ROOT/tn lab_ab layout_candidates ${L_S:-150} budget=${B_S2:-130} members=tall-128x64-k16 \
    "vary=vec:unaligned_rows=False;unaligned_vectors=True|vec0:unaligned_rows=False;unaligned_vectors=True;max_registers=0" \
    TN:3001x3001x64 TN:2171x275x1089 TN:4343x275x545 TN:3071x386x770 TN:2171x273x2175 TN:4343x273x1091 \
    TN:767x771x3073 TN:2171x546x2174 TN:2171x274x4346 TN:4343x138x4346 TN:6143x193x3075 TN:2171x547x4345 \
    TN:4343x274x4346 TN:8687x547x1089 TN:2171x545x8691 TN:1535x771x12289 TN:6143x193x12291 TN:5555x555x5555
OUT=$ROOT archive session32_b
