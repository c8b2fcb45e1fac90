#!/bin/bash
# Session 16: the family with the three BK 32 members (codegen/presets.py: sq-64x64-4x8-k32, wide-32x64-k32,
# tall-64x32-k32): every candidate member timed on the suite (the whole suite again, so that the new members are
# compared with the others within one run), on the small-problem grid and on the long thin grid.  The refit is done
# on the CPU.  One archive ($OUT/session16_e.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
C=${REGTILE_COMMIT:-unknown}
candidates benchmarks/shapes.json $OUT/shape-candidates-session16-suite_$C.json ${SUITE_S:-230} candidates_suite.log
candidates benchmarks/shapes-fit-small.json $OUT/shape-candidates-session16-fit-small_$C.json ${GRID_S:-160} candidates_small.log
candidates benchmarks/shapes-fit-tall.json $OUT/shape-candidates-session16-fit-tall_$C.json ${TALL_S:-110} candidates_tall.log
archive session16_e
