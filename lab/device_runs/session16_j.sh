#!/bin/bash
# Session 16: every candidate member timed on the tiny-output grid's other K values (8192, 32768, 131072, 262144:
# 60 shapes; b311e1b timed 4096, 16384 and 65536).  One archive ($OUT/session16_j.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
python3 -c "
import json
json.dump([r for r in json.load(open('benchmarks/shapes-fit-tiny.json')) if r['k'] not in (4096, 16384, 65536)], open('/tmp/tiny2.json', 'w'))"
candidates /tmp/tiny2.json $OUT/shape-candidates-session16-fit-tiny2_${REGTILE_COMMIT:-unknown}.json ${GRID_S:-300} candidates_tiny2.log
archive session16_j
