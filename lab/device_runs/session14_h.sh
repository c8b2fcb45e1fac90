#!/bin/bash
# Session 14: as session14_g.sh, with the skinny members' rule (heuristic.candidate_names: the thin tile holds
# the thin side whole): held-out 2 with the table as committed, the candidates of held-out 1 and the sticky
# refit (0.03) with them last, then the suite, held-out 1 and held-out 2 with the refit table.  Every output
# in one archive ($OUT/session14_h.tgz: the device tool brings back a few files only).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s14
sweep_suite benchmarks/shapes-heldout-2.json heldout2-before ${H_S:-60}
candidates_and_refit benchmarks/shapes-heldout.json $OUT/shape-candidates-session14-heldout_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-150} 0.03
sweep ${SWEEP_S:-110}
sweep_suite benchmarks/shapes-heldout.json heldout1-after ${H_S:-60}
sweep_suite benchmarks/shapes-heldout-2.json heldout2-after ${H_S:-60}
tar czf $REAL_OUT/session14_h.tgz -C $REAL_OUT r && rm -rf $OUT
