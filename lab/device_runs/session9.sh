#!/bin/bash
# Session 9, first run (issue 20), at the k16 members' clamp with the SASS pass (no sweep had run with it):
#   1. lab/experiments/peel_n.py: the ragged shapes' last columns peeled and run beside the interior on a
#      second stream (side_first / side_after), against the library's plan and cuBLAS;
#   2. the candidates of the whole suite and the sticky refit (--sticky 0.03) over the table's sources with
#      this run last;
#   3. the sweep with that table.
. lab/device_runs/prelude.sh /tmp/rtc_s9
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s9
( time timeout 100 python3 -m lab.experiments.peel_n 255x257x65537 1023x1025x1023 513x129x16383 1009x1013x1019 \
    8191x8193x1025 ) > $OUT/peel_side.log 2>&1
echo "peel: rc $?"; grep -E "x[0-9]+: |Error|error" $OUT/peel_side.log | cut -c1-400
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session9_${REGTILE_COMMIT:-unknown}.json 115 0.03
sweep 215
