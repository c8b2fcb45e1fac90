#!/bin/bash
# Issue 20 session 4 (helper lat), device run 1, from the repository root on the GPU machine:
# every candidate (the new fused members with the wide sum / deeper ring among them) of the suite
# shapes where a new member is one, each checked against float64 with C NaN-poisoned; the table
# refit (rounds 3-5 + this run); what regtile.sgemm then launches for the targets against cuBLAS.
. lab/device_runs/prelude.sh /tmp/rtc_lat
python3 lab/device_runs/shapes_session4_prep.py /tmp/cand.json /tmp/lib.json
( time timeout 125 python3 -m regtile.tools.shape_sweep --candidates --suite /tmp/cand.json \
    --json $OUT/shape-candidates-session4-run1.json --budget-s 105 ) > $OUT/candidates.log 2>&1
echo "candidates: rc $?"; grep -E "compiled|^\[|WRONG|False" $OUT/candidates.log | cut -c1-140
python3 -m regtile.tools.shape_sweep --fit docs/data/shape-candidates-round3-final.json docs/data/shape-candidates-round4-run1.json \
    docs/data/shape-candidates-round4-run2.json docs/data/shape-candidates-round5-run1_1d52bea.json \
    $OUT/shape-candidates-session4-run1.json && cp codegen/heuristic_table.json $OUT/heuristic_table.json
( time timeout 50 python3 -m regtile.tools.shape_sweep --suite /tmp/lib.json --json $OUT/shape-sweep-session4-run1.json \
    --md $OUT/shapes_table.md --budget-s 40 ) > $OUT/sweep.log 2>&1
echo "sweep: rc $?"; tail -22 $OUT/shapes_table.md
