#!/bin/bash
# Prepared in session 39, not run there: the suite in TN, NT and TT with the split-K partial kernel programmatic
# (session 39's figures, at c935cab, are from before it).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s40
layout_sweep TN ${SWEEP_S:-150}
layout_sweep NT ${SWEEP_S:-150}
layout_sweep TT ${SWEEP_S:-150}
archive session40_c
