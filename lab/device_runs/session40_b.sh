#!/bin/bash
# Prepared in session 39, not run there: the whole GPU suite and the NN suite's sweep with the split-K partial kernel
# programmatic (50d6a3b; session 39 ran only the PDL and split-K GPU tests and its eight-plan A/B after the change).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s40
gpu_suite ${G_S:-330}
sweep ${SWEEP_S:-150}
archive session40_b
