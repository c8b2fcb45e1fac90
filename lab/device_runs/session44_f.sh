#!/bin/bash
# Session 44's last run: the whole GPU suite at the session's last code (B^T alone in NT / TT, the copies' floor of
# 8e8 multiply-adds); B^T alone against both operands' copies on NT / TT shapes that copy both today and are long in M
# (m n / (m + n) of 725-968, m / n of 4-16: does B alone win there too?).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
gpu_suite ${G_S:-300}
lab_ab repack_rule_ab ${R_S:-120} rules=AB,B NT:4096x1024x479 NT:12287x770x770 TT:12287x770x770 NT:4343x1090x2174 \
    TT:8687x1090x1090
archive session44_f
