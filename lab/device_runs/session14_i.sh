#!/bin/bash
# Session 14: held-out 3 (benchmarks/shapes-heldout-3.json) with the table as committed and the skinny rule, then
# the candidates of held-out 1 and 2 together and the sticky refit (0.03) with them last, then the suite and the
# three held-out sets with the refit table: does a table fitted on 82 more real shapes carry to a third set?
# Every output in one archive ($OUT/session14_i.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s14
sweep_suite benchmarks/shapes-heldout-3.json heldout3-before ${H_S:-60}
python3 -c "import json; json.dump(json.load(open('benchmarks/shapes-heldout.json')) + json.load(open('benchmarks/shapes-heldout-2.json')), open('/tmp/heldout12.json', 'w'))"
candidates_and_refit /tmp/heldout12.json $OUT/shape-candidates-session14-heldout12_${REGTILE_COMMIT:-unknown}.json ${CAND_S:-170} 0.03
sweep ${SWEEP_S:-110}
sweep_suite benchmarks/shapes-heldout-3.json heldout3-after ${H_S:-60}
sweep_suite benchmarks/shapes-heldout.json heldout1-after ${H_S:-50}
sweep_suite benchmarks/shapes-heldout-2.json heldout2-after ${H_S:-50}
tar czf $REAL_OUT/session14_i.tgz -C $REAL_OUT r && rm -rf $OUT
