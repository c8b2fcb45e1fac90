#!/bin/bash
# Session 25 (issue 20), the session's library: tall-128x64-k16's held float copies (b4a3111), the fused kernel's
# lean copies only where M and N are whole tiles (operand_forms.for_lean_copies) and the table refit with
# session25_d's candidates (the rows the new rule keeps).  The fused and API GPU tests; the suite's sweep; held-out
# 1 and 4 (the sets with fused plans).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
gpu_tests 150 "not nothing" tests/gpu/test_fusedk_gpu.py tests/gpu/test_api_gpu.py
sweep 200
heldout_sweeps 75 1 4
archive session25_f
