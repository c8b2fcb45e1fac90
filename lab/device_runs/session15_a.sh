#!/bin/bash
# Session 15: fresh out-of-sample data for the heuristic's model.  Every candidate member timed on held-out 3
# (benchmarks/shapes-heldout-3.json: until now swept, never timed member by member) and on held-out 4 (new,
# benchmarks/shapes-heldout-4.json), then held-out 4 through regtile.sgemm as committed.  The model's variants
# are then judged offline (lab/experiments/model_fit_eval.py).  Every output in one archive ($OUT/session15_a.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s15
candidates benchmarks/shapes-heldout-3.json $OUT/shape-candidates-heldout3_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-170} candidates3.log
candidates benchmarks/shapes-heldout-4.json $OUT/shape-candidates-heldout4_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-170} candidates4.log
sweep_suite benchmarks/shapes-heldout-4.json heldout4-before ${H_S:-90}
archive session15_a
