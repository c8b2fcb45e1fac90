#!/bin/bash
# Session 13 (issue 20): the few-vector stage kernel as 32 x 32 tiles (coalesced reads and writes).  The fewvec GPU
# tests (the ring's cases among them) and their memcheck script, the plan's kernels timed alone
# (lab/experiments/fewvec_parts.py), and the few-vector route against the members and cuBLAS (fewvec_bench).
. lab/device_runs/prelude.sh /tmp/rtc_s13
fewvec_checks ${TEST_S:-150}
( timeout ${PARTS_S:-60} python3 -m lab.experiments.fewvec_parts $OUT/fewvec_parts.json ) > $OUT/fewvec_parts.log 2>&1
echo "parts: rc $?"; cut -c1-220 $OUT/fewvec_parts.log | grep -v Warning | tail -14
( timeout ${BENCH_S:-150} python3 -m lab.experiments.fewvec_bench $OUT/fewvec_bench.json --rounds 5 ) > $OUT/fewvec_bench.log 2>&1
echo "bench: rc $?"; grep -E "^[0-9]+x" $OUT/fewvec_bench.log | cut -c1-250
