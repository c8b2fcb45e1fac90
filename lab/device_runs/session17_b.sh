#!/bin/bash
# Session 17: every candidate member timed on the narrow grid's M midpoints (benchmarks/shapes-fit-narrow.json's
# rows with M = 3 x 2^j, 293 shapes; the doublings were session17_a's).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s17
python3 -c "import json, sys; from benchmarks.shapes import FIT_NARROW_M_MID as mid
json.dump([r for r in json.load(open('benchmarks/shapes-fit-narrow.json')) if r['m'] in mid], open(sys.argv[1], 'w'))" \
    /tmp/narrow_mid.json
candidates /tmp/narrow_mid.json $OUT/shape-candidates-session17-fit-narrow-mid_${REGTILE_COMMIT:-unknown}.json \
    ${GRID_S:-240} candidates_narrow_mid.log | tail -4
archive session17_b
