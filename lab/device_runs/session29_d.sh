#!/bin/bash
# Session 29 (issue 20), the closing call: the whole GPU suite with the table that knows unaligned rows (the three
# ragged grids, heuristic.rows_aligned / CLASS_DISTANCE), then held-out 1, 3, 4 and 5 through regtile.sgemm as
# committed (the sets whose picks it moved: five unaligned shapes).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s29d
gpu_suite ${GPU_S:-280}
heldout_sweeps ${H_S:-63} 1 3 4 5
archive session29_d
