#!/bin/bash
# Session 17, first call: both operands' unaligned floats behind one test (lab/experiments/both_floats_ab.py: the
# plan as built against each operand's own test and branch, and cuBLAS), then every candidate member timed on the
# narrow grid (benchmarks/shapes-fit-narrow.json, 337 shapes: M 2048-65536, N 24-256, K 16-384).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s17
( time timeout ${AB_S:-200} python3 -m lab.experiments.both_floats_ab ) > $OUT/both_floats_ab.log 2>&1
echo "both_floats_ab: rc $?"; grep -vE "^\s*$" $OUT/both_floats_ab.log | cut -c1-220 | tail -20
candidates benchmarks/shapes-fit-narrow.json $OUT/shape-candidates-session17-fit-narrow_${REGTILE_COMMIT:-unknown}.json \
    ${GRID_S:-270} candidates_narrow.log | tail -5
archive session17_a
