#!/bin/bash
# Session 43: repacking in TT and NN too (codegen/repack.REPACK_OPERANDS, from a_0eb71e7's repack_rule_ab).  The repack
# GPU tests (NT / TT / NN, strided operands, a column-major C, rows beyond the copy grid's 65535, a graph, two
# streams); the plan as committed ("lib") against the plan in place on NN's eight other shapes the rule takes; the
# suite in TT and the held-out sets in TT through the repacking plans.  Limits add up to 500 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s43
gpu_tests ${T_S:-80} "" tests/gpu/test_repack_gpu.py
lab_ab repack_rule_ab ${NN_S:-140} rules=none NN:1234x5678x910 NN:2999x7001x211 NN:3333x2222x1111 \
    NN:4095x4095x4095 NN:4097x4097x4097 NN:4099x4093x4091 NN:6143x2047x3071 NN:8191x8193x1025
layout_sweep TT ${SWEEP_S:-130}
heldout_layout TT ${HL_S:-130}
archive session43_b
