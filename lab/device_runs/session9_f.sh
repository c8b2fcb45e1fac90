#!/bin/bash
# Session 9, last run (issue 20): the fused last column (config.last_col) taken where N is one past at most four
# tile columns (heuristic.for_columns, LAST_COL_MAX_TILE_COLUMNS), its copies branched past outside the last tile
# column: the whole GPU suite; the A/B on the shapes that take it; the sweep.
. lab/device_runs/prelude.sh /tmp/rtc_s9f
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s9f
gpu_suite 235
( timeout 70 python3 -m lab.experiments.last_col_ab 255x257x65537 513x129x16383 4096x257x4096 300x129x50000 ) > $OUT/last_col_ab.log 2>&1
echo "A/B: rc $?"; grep -E "x[0-9]+: |Error" $OUT/last_col_ab.log | cut -c1-300
sweep 130
