#!/bin/bash
# Session 43: one copy launch for both operands (templates/pack_rows.cu.j2: a 1-D grid over both operands' rows; d
# timed two launches at 2.6 TB/s on 2049x2047x1025's 34 MB, 3.9 TB/s on 4099x4093x4091's 268 MB).  The repack GPU
# tests (one operand copied too); repack_rule_ab parts=1 on d's six shapes; the 12 suite and held-out NT shapes the
# rule takes through the sweep (session 42's h).  Limits add up to 250 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s43
gpu_tests ${T_S:-80} "" tests/gpu/test_repack_gpu.py
lab_ab repack_rule_ab ${P_S:-80} rules=none parts=1 TT:2049x2047x1025 NT:2049x2047x1025 NN:2049x2047x1025 \
    NT:4099x4093x4091 TT:8191x8193x1025 TT:3333x2222x1111
mv $OUT/repack_rule_ab.json $OUT/repack_parts.json; mv $OUT/repack_rule_ab.log $OUT/repack_parts.log
_sweep "repacked NT" ${R_S:-90} repack-NT.json repack-NT.md repack-NT.log --suite lab/device_runs/repack_nt_s42.json --layout NT
grep '^\[' $OUT/repack-NT.log
archive session43_e
