#!/bin/bash
# Session 45: decode's batches split over K (skinny-m16's tile as the CUDA C split-K kernel, blockIdx.z = entry x
# splits + split; codegen/batch_choice.skinny_split) and sq-128x128's edge clamp with B^T: the batched GPU tests,
# memcheck on exact-size buffers, the batched suite and held-out set.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
gpu_tests ${T_S:-200} "batch" $(grep -l batch tests/gpu/test_*.py)
( timeout ${M_S:-200} compute-sanitizer --tool memcheck --error-exitcode 9 python3 lab/device_runs/batched_memcheck.py ) \
    > $OUT/memcheck.log 2>&1; echo "memcheck: rc $?"; grep -cE " ok$" $OUT/memcheck.log
grep -E "WRONG|ERROR SUMMARY" $OUT/memcheck.log | sort | uniq -c | head -5
lab_ab batched_sweep ${H_S:-100} members=1 suite=benchmarks/shapes-batched-heldout.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout.log
lab_ab batched_sweep ${B_S:-100} members=1
archive session45_f
