#!/bin/bash
# Session 43: repacking beyond NT through the plan's own copy kernel (session 42 timed TT / TN with torch's copies
# only, f_8358846).  The repack GPU tests (the two-stream change after session 42's h had not run on the GPU); then
# lab/experiments/repack_rule_ab: the plan in place, with both operands copied (AB) and with one (A or B), against
# cuBLAS, on TT's unaligned suite and held-out shapes with m n / (m + n) of 500-4096, NN's and TN's largest.
# Limits add up to 560 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s43
gpu_tests ${T_S:-60} "" tests/gpu/test_repack_gpu.py
lab_ab repack_rule_ab ${TT_S:-330} rules=AB,B TT:2049x2047x1025 TT:4001x4003x4007 TT:2047x4097x1023 \
    TT:3333x2222x1111 TT:2999x7001x211 TT:1919x2929x3939 TT:6143x2047x3071 TT:4099x4093x4091 TT:8191x8193x1025 \
    TT:1234x5678x910 TT:1531x2039x1021 TT:1111x3333x2222 TT:1023x4095x2047 TT:4095x4095x4095 TT:4096x1024x479 \
    TT:999x999x999 TT:4097x4097x4097
mv $OUT/repack_rule_ab.json $OUT/repack_rule_ab_TT.json; mv $OUT/repack_rule_ab.log $OUT/repack_rule_ab_TT.log
lab_ab repack_rule_ab ${NN_S:-160} rules=A,AB NN:2049x2047x1025 NN:2047x4097x1023 NN:1919x2929x3939 \
    NN:4001x4003x4007 TN:2049x2047x1025 TN:8191x8193x1025 TN:6143x2047x3071
archive session43_a
