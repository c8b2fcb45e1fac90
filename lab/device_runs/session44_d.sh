#!/bin/bash
# Session 44: NT and TT copy B^T alone from m >= 3000 (codegen/repack.REPACK_RULES, c_049e690), no copies under
# REPACK_MIN_MACS.  The repack and API GPU tests; the plan as committed ("lib") against in place and the forced rules on
# the five held-out shape-layouts the rule changes (TT 5555x555x5555 never timed copied) and on four probes of the
# floor (two below it, where lib reads in place, two above); the held-out sets in NT and TT.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
gpu_tests ${T_S:-100} "" tests/gpu/test_repack_gpu.py tests/gpu/test_api_gpu.py
lab_ab repack_rule_ab ${R_S:-200} rules=AB,B TT:5555x555x5555 NT:5555x555x5555 NT:8191x511x2047 TT:8191x511x2047 \
    TT:4096x1024x479 NT:1087x2173x71 TT:6143x1538x98 NT:2171x2174x546 TT:4343x546x1090
heldout_layout NT ${HNT_S:-100}
heldout_layout TT ${HTT_S:-100}
archive session44_d
