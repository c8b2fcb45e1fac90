#!/bin/bash
# Session 14: the held-out shapes into the table.  The second held-out set with the table as committed, then
# every candidate member on the first held-out set (benchmarks/shapes-heldout.json) and the sticky refit (0.03)
# with that run last, then with the refit table (the device's copy of the tree): the suite, held-out 1
# (now fitted) and held-out 2 (never fitted).
. lab/device_runs/prelude.sh /tmp/rtc_s14
sweep_suite benchmarks/shapes-heldout-2.json heldout2-before ${H_S:-60}
candidates_and_refit benchmarks/shapes-heldout.json $OUT/shape-candidates-session14-heldout_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-220} 0.03
sweep ${SWEEP_S:-110}
sweep_suite benchmarks/shapes-heldout.json heldout1-after ${H_S:-60}
sweep_suite benchmarks/shapes-heldout-2.json heldout2-after ${H_S:-60}
