#!/bin/bash
# Session 29 (issue 20): every candidate member on the aligned partners of the ragged grid and the big ragged grid
# (benchmarks/shapes-pair-aligned.json: each grid point before its moves, M + 1, N & ~3, K & ~3), on the same device
# as the ragged rows: the pairs give each member's cost of unaligned rows, for the model.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s29f
candidates benchmarks/shapes-pair-aligned.json $OUT/shape-candidates-pair-aligned.json ${C_S:-330} candidates_pairs.log
archive session29_f
