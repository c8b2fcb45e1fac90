#!/bin/bash
# Session 30 (issue 20): the table with the aligned grid (benchmarks/shapes-fit-aligned.json: session 29's aligned
# partners, apart from the suite and the held-out sets), judged through regtile.sgemm on held-out 1-5, then every
# candidate member on all 195 held-out shapes (lab/device_runs/heldout_all_s30.json: never fitted; an H200 judge for
# the aligned held-out shapes, whose only every-member runs were session 16's on the H100).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s30a
heldout_sweeps ${H_S:-63} 1 2 3 4 5
candidates lab/device_runs/heldout_all_s30.json $OUT/shape-candidates-heldout-all.json ${C_S:-220} candidates_heldout.log
archive session30_a
