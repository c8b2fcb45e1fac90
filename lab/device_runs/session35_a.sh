#!/bin/bash
# Session 35 (issue 20): the SASS pass's barrier step (sass/barrier.py) - its A/B in TN against the pass without it
# (lab/experiments/barrier_ab.py), racecheck on the kernels it moves, the layout / SASS-pass / API GPU tests; and
# the PDL GPU tests' new stream-K case (512x16x32768), not run since session 34.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s35a
lab_ab barrier_ab ${L_S:-240}
( time timeout ${R_S:-120} compute-sanitizer --tool racecheck --error-exitcode 9 python3 lab/device_runs/barrier_race.py ) > $OUT/racecheck.log 2>&1
echo "racecheck: rc $?"; grep -E "barrier step|RACE|ERROR SUMMARY|Error" $OUT/racecheck.log | cut -c1-300 | head
gpu_tests ${T_S:-200} "not slow_nothing" tests/gpu/test_layouts_gpu.py tests/gpu/test_sass_pass_gpu.py tests/gpu/test_pdl_gpu.py tests/gpu/test_api_gpu.py
archive session35_a
