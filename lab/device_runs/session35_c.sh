#!/bin/bash
# Session 35 (issue 20): the SASS pass's store step (sass/stores.py) - its A/B against the pass without it on the
# k16 members' shapes in every layout (lab/experiments/stores_ab.py), racecheck on the kernels it and the barrier
# step rewrite, and the family / SASS-pass / layout GPU tests.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s35c
lab_ab stores_ab ${L_S:-200}
( time timeout ${R_S:-150} compute-sanitizer --tool racecheck --error-exitcode 9 python3 lab/device_runs/barrier_race.py ) > $OUT/racecheck.log 2>&1
echo "racecheck: rc $?"; grep -E "steps|RACE|ERROR SUMMARY|Error" $OUT/racecheck.log | cut -c1-300 | head -12
gpu_tests ${T_S:-200} "not slow_nothing" tests/gpu/test_family_gpu.py tests/gpu/test_sass_pass_gpu.py tests/gpu/test_layouts_gpu.py
archive session35_c
