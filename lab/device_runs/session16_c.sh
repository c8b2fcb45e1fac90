#!/bin/bash
# Session 16: every candidate member timed on the long thin fitting grid (benchmarks/shapes-fit-tall.json, 122
# shapes), and on held-out 1 and 2's shapes with N % 4 != 0 again (session 14's candidates predate C staged), for the
# offline judging.  One archive ($OUT/session16_c.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
python3 - <<'P'
import json
rows = [r for src in ("benchmarks/shapes-heldout.json", "benchmarks/shapes-heldout-2.json") for r in json.load(open(src))
        if r["n"] % 4 and r["m"] > 1 and r["n"] > 1]
json.dump(rows, open("/tmp/h12_n4.json", "w")); print("/tmp/h12_n4.json", len(rows))
P
C=${REGTILE_COMMIT:-unknown}
candidates benchmarks/shapes-fit-tall.json $OUT/shape-candidates-session16-fit-tall_$C.json ${GRID_S:-420} candidates_tall.log
candidates /tmp/h12_n4.json $OUT/shape-candidates-heldout12-n4_$C.json 90 candidates_h12_n4.log
archive session16_c
