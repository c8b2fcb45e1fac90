#!/bin/bash
# Prepared in session 46 for the next session: the single-GEMM suite in NN and NT and the held-out sets in NN (last swept
# in session 45 and 44; session 46 changed nothing on their path, so these are the baselines for what comes next), then
# the three batched sets with every member at session 46's last code (the batched GEMV's rows beside the GEMM members:
# data for a refit of the batch model's TT rates and partial waves, judged on a fourth set).  Limits add up to 560 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47
sweep ${NN_S:-100}
heldout_layout NN ${HNN_S:-130}
layout_sweep NT ${NT_S:-100}
lab_ab batched_sweep ${T_S:-70} members=1 suite=benchmarks/shapes-batched-heldout-2.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout2.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout2.log
batched_sets ${H_S:-70} ${B_S:-70} members=1
archive session47_a
