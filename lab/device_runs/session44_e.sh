#!/bin/bash
# Session 44: the repack GPU tests after d's fix (70001x1027x13 fell under REPACK_MIN_MACS: K 29 now); the copies forced
# (repack_rule_ab, the floor lifted) on GEMMs under REPACK_MIN_MACS (2e9 multiply-adds), where the plan reads in place,
# and one above it.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
gpu_tests ${T_S:-80} "" tests/gpu/test_repack_gpu.py
lab_ab repack_rule_ab ${R_S:-200} rules=AB,B NT:1087x2173x71 TT:6143x1538x98 NT:12544x64x147 NT:2171x2175x137 \
    TT:4343x70x4347 NT:1535x1539x769 NT:3071x1537x771
archive session44_e
