#!/bin/bash
# Session 45: the batched choice of codegen/batch_choice.py (fitted on session45_b's run) on a held-out set of batched
# shapes (benchmarks/shapes-batched-heldout.json, never fitted) and on the suite it was fitted on, each with every
# batched member that fits (lab/experiments/batched_sweep.py members=1); the batched GPU tests.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
lab_ab batched_sweep ${H_S:-200} members=1 suite=benchmarks/shapes-batched-heldout.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout.log
lab_ab batched_sweep ${B_S:-150} members=1
gpu_tests ${T_S:-200} "batch" $(grep -l batch tests/gpu/test_*.py)
archive session45_c
