#!/bin/bash
# Prepared in session 27, not yet run: every candidate member on the ragged fitting grid
# (benchmarks/shapes-fit-ragged.json, 268 shapes with unaligned rows and N % 4 != 0; about 5-7 minutes), the data for
# a table and model that know ragged shapes (docs/shapes.md, session 27 "Next").  Fitting it is a separate, CPU step
# (shape_sweep --fit with this run last), to be judged on the held-out sets before it lands.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_ragged_grid
candidates benchmarks/shapes-fit-ragged.json $OUT/shape-candidates-fit-ragged.json ${C_S:-560}
archive ragged_grid
