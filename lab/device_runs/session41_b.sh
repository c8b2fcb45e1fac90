#!/bin/bash
# Prepared in session 40, not run there: every candidate member in TN (fused ones too) on session 38's probe shapes
# and the suite's small shapes again (session 38's a_fe7883a: 291 shapes in 6.9 min, timed before sessions 38-40
# moved the stream-K ranges kernel's trigger, the one-pass and split-K triggers and launched the split-K partial and
# fused kernels programmatic), the data for a TN correction of the members TN's ring runs (docs/shapes.md, next).
# One call: about 7 of the 10 minutes a call may run.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s41
lab_ab layout_candidates ${L_S:-540} suite=lab/device_runs/layout_probe_s38.json,benchmarks/shapes.json \
    max_mnk=2147483648 layouts=TN fused=1 budget=${BUDGET:-500}
mv $OUT/layout_candidates.json $OUT/layout_candidates_TN.json; mv $OUT/layout_candidates.log $OUT/layout_candidates_TN.log
archive session41_b
