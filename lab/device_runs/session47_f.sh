#!/bin/bash
# Session 47's last code: the whole GPU suite, then the three batched sets with every member (the member timings the
# batch model's rates were fitted on were taken with the one-pass kernels triggering the next call at entry; these
# are the first with the batched kernels' trigger at exit: data for a refit).  Limits add up to 390 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47f
gpu_suite ${G_S:-280}
lab_ab batched_sweep ${T_S:-40} members=1 suite=benchmarks/shapes-batched-heldout-2.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout2.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout2.log
batched_sets ${H_S:-35} ${B_S:-35} members=1
archive session47_f
