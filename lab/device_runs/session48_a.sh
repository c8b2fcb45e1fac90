#!/bin/bash
# Prepared in session 47 for the next session: the single-GEMM suite in TN and TT and the held-out sets in TN and TT
# (last swept in session 45; session 47 changed the GEMV and few-vector op T kernels' strips past N and the batched
# kernels' PDL trigger, neither on these layouts' GEMM path, so these are the baselines for what comes next), then the
# third batched set with every member again (with session 47's f, a second member-timed run with the batched trigger at
# exit: data for a refit of batch_choice's rates, to be judged on a fourth set).  Limits add up to 520 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s48
layout_sweep TN ${TN_S:-100}
layout_sweep TT ${TT_S:-100}
heldout_layout TN ${HTN_S:-130}
heldout_layout TT ${HTT_S:-130}
lab_ab batched_sweep ${T_S:-60} members=1 suite=benchmarks/shapes-batched-heldout-2.json
archive session48_a
