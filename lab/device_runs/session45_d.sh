#!/bin/bash
# Session 45: batched members keep their edge clamp (one block an SM), and K in whole k-tiles in batch_choice's
# model: the batched GPU tests, memcheck on the ragged batched shapes, the held-out batched set and the suite again.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
gpu_tests ${T_S:-200} "batch" $(grep -l batch tests/gpu/test_*.py)
( timeout ${M_S:-150} compute-sanitizer --tool memcheck --error-exitcode 9 python3 lab/device_runs/batched_memcheck.py ) \
    > $OUT/memcheck.log 2>&1; echo "memcheck: rc $?"; grep -cE " ok$" $OUT/memcheck.log; grep -E "WRONG|ERROR SUMMARY" $OUT/memcheck.log | head -5
lab_ab batched_sweep ${H_S:-120} members=1 suite=benchmarks/shapes-batched-heldout.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout.log
lab_ab batched_sweep ${B_S:-120} members=1
archive session45_d
