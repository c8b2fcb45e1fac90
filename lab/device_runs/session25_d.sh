#!/bin/bash
# Session 25 (issue 20), at the commit where tall-128x64-k16 takes the float copies held at 168 registers on
# unaligned rows (operand_forms.FLOAT_COPIES_HELD_K16): its GPU tests (unaligned rows, last column), held-out 3
# and 4 (5555x555x5555, 3001x3001x64); then every candidate re-timed on the table shapes where a fused member ran
# within 30% of the fastest before its lean copies (lab/device_runs/session25_lean_prep.py) for a refit.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
gpu_tests 240 "not nothing" tests/gpu/test_unaligned_gpu.py tests/gpu/test_last_col_gpu.py
heldout_sweeps 75 3 4
python3 lab/device_runs/session25_lean_prep.py $OUT/lean_suite.json
candidates $OUT/lean_suite.json $OUT/shape-candidates-session25-lean.json 200
archive session25_d
