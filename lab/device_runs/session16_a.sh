#!/bin/bash
# Session 16: every candidate member timed on the small-problem fitting grid (benchmarks/shapes-fit-small.json,
# 241 shapes) and, since C's unaligned rows are staged (session 15), again on the suite's and held-out 3 / 4's
# shapes with N % 4 != 0 (their candidates predate it).  The refit is done on the CPU.  One archive.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
python3 - <<'P'
import json
for src, dst in (("benchmarks/shapes.json", "/tmp/suite_n4.json"),
                 ("benchmarks/shapes-heldout-3.json", "/tmp/h3_n4.json"), ("benchmarks/shapes-heldout-4.json", "/tmp/h4_n4.json")):
    rows = [r for r in json.load(open(src)) if r["n"] % 4 and r["m"] > 1 and r["n"] > 1]
    json.dump(rows, open(dst, "w")); print(dst, len(rows))
P
C=${REGTILE_COMMIT:-unknown}
candidates benchmarks/shapes-fit-small.json $OUT/shape-candidates-fit-small_$C.json ${GRID_S:-360} candidates_grid.log
candidates /tmp/suite_n4.json $OUT/shape-candidates-suite-n4_$C.json ${N4_S:-90} candidates_suite_n4.log
candidates /tmp/h3_n4.json $OUT/shape-candidates-heldout3-n4_$C.json 40 candidates_h3_n4.log
candidates /tmp/h4_n4.json $OUT/shape-candidates-heldout4-n4_$C.json 40 candidates_h4_n4.log
archive session16_a
