#!/bin/bash
# Session 43: where a repacking plan's time goes (repack_rule_ab parts=1: the copies alone, the GEMM alone on them,
# the whole plan) on six repacked shapes; the rule below m n / (m + n) = 1000 with the plan's own copy kernel (session
# 42 set the bound with torch's copies): four shapes of 706-874 in NT, NN and TT; then the whole GPU suite at this
# commit.  Limits add up to 560 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s43
lab_ab repack_rule_ab ${P_S:-90} rules=none parts=1 TT:2049x2047x1025 NT:2049x2047x1025 NN:2049x2047x1025 \
    NT:4099x4093x4091 TT:8191x8193x1025 TT:3333x2222x1111
mv $OUT/repack_rule_ab.json $OUT/repack_parts.json; mv $OUT/repack_rule_ab.log $OUT/repack_parts.log
lab_ab repack_rule_ab ${H_S:-150} rules=AB NT:1111x3333x2222 NN:1111x3333x2222 TT:1111x3333x2222 \
    NT:1023x4095x2047 NN:1023x4095x2047 TT:1023x4095x2047 NT:1531x2039x1021 NN:1531x2039x1021 TT:1531x2039x1021 \
    NT:777x7777x777 NN:777x7777x777 TT:777x7777x777
mv $OUT/repack_rule_ab.json $OUT/repack_below1000.json; mv $OUT/repack_rule_ab.log $OUT/repack_below1000.log
gpu_suite ${G_S:-310}
archive session43_d
