#!/bin/bash
# Session 40: the table's suite rows timed again with the triggers as they are now (sessions 39-40: the one-pass,
# few-vector, split-K and fused kernels' programmatic launches changed since the candidates the table holds): the
# candidates of the whole suite, the sticky refit (0.03) over the table's sources with this run last, then the
# suite in NN and TN with that table (the refit table: $OUT/heuristic_table.json).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s40
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session40-suite_${REGTILE_COMMIT:-unknown}.json ${C_S:-200} 0.03
sweep ${SWEEP_S:-90}
layout_sweep TN ${SWEEP_S:-90}
archive session40_g
