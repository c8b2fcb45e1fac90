#!/bin/bash
# Session 38 (issue 20): every candidate member in a layout (LAYOUT, default TN) on the layout grid
# (lab/device_runs/layout_probe_s38.json: 243 aligned shapes of the NN fitting grids near the suite's and the held-out
# sets' small shapes) and the suite's small shapes (m n k <= 2^31), as regtile.sgemm would run each member there
# (layouts.with_layout, operand_forms.for_operands: TN's ring included), against cuBLAS in the layout: the data of a
# per-layout table for small shapes (codegen/heuristic.py).  First (RING=1) the k32 members' ring of 3 / 4 stages,
# three times over, on the TN shapes where session 37 saw them swing 30-40% (a_711d9bf).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
LAYOUT=${LAYOUT:-TN}
if [ "${RING:-1}" = 1 ]; then
    S="TN:3136x64x576 TN:512x512x512 TN:2048x64x2048"
    lab_ab layout_candidates ${R_S:-90} members=wide-32x64-k32,tall-64x32-k32 \
        "vary=r3:stages=3;sass_pass=False;hoist_head=False|r4:stages=4;sass_pass=False;hoist_head=False" $S $S $S
    mv $OUT/layout_candidates.json $OUT/ring34.json; mv $OUT/layout_candidates.log $OUT/ring34.log
fi
lab_ab layout_candidates ${L_S:-500} suite=lab/device_runs/layout_probe_s38.json,benchmarks/shapes.json \
    max_mnk=2147483648 layouts=$LAYOUT fused=1 budget=${BUDGET:-470}
mv $OUT/layout_candidates.json $OUT/layout_candidates_$LAYOUT.json; mv $OUT/layout_candidates.log $OUT/layout_candidates_$LAYOUT.log
archive session38_a_$LAYOUT
