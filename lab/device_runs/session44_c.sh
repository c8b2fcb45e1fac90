#!/bin/bash
# Session 44: one operand copied into padded rows where the other dimension is large (B where m is, A where n is):
# the copy costs 1/m (1/n) of the GEMM's time, as both operands' cost 1/h (h = m n / (m + n)).  b found NT
# 8191x511x2047 4% faster copying B alone (copying both 3% slower).  Held-out shapes below or near cuBLAS with
# unaligned rows that no rule repacks, then ragged fitting-grid shapes (never timed so), rules AB, A and B.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
lab_ab repack_rule_ab ${R_S:-420} rules=AB,A,B NT:8191x511x2047 NN:5555x555x5555 TT:3001x3001x64 NN:1111x3333x2222 \
    NN:1023x4095x2047 NN:3001x3001x64 NN:333x33333x333 TT:8191x511x2047 NN:8191x511x2047 NN:777x7777x777 \
    TT:4096x1024x479 NN:1531x2039x1021 NN:767x3075x12289 NN:3071x195x12289 NN:8687x137x4347 NT:3071x771x6145 \
    NN:2171x1091x8689 TT:8687x547x8689 NN:1087x4347x1089 NT:2171x546x2174 NT:543x4346x1090 NN:2171x546x2174 \
    NT:4343x274x2174 NN:3071x385x3075 TT:3071x769x1539 NT:383x6145x1539 NT:6143x193x3075 TT:6143x769x771
archive session44_c
