#!/bin/bash
# Session 16: every candidate member timed on the small-problem grid's K midpoints (benchmarks/shapes.py
# FIT_SMALL_K_MID: the 201 shapes of shapes-fit-small.json with K = 3 x 2^j) and on the new held-out 5 (for judging
# offline only).  One archive ($OUT/session16_h.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
C=${REGTILE_COMMIT:-unknown}
python3 -c "
import json, sys; sys.path.insert(0, 'benchmarks'); import shapes
json.dump([r for r in shapes.fit_small() if r['k'] in shapes.FIT_SMALL_K_MID], open('/tmp/fit_mid.json', 'w'))"
candidates /tmp/fit_mid.json $OUT/shape-candidates-session16-fit-small-mid_$C.json ${GRID_S:-200} candidates_mid.log
candidates benchmarks/shapes-heldout-5.json $OUT/shape-candidates-session16-heldout5_$C.json ${H_S:-120} candidates_h5.log
archive session16_h
