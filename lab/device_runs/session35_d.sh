#!/bin/bash
# Session 35 (issue 20): the session's library (the SASS pass's barrier step, and its store step on B^T's 24 stores
# of the k16 tiles) - the whole GPU suite, then the suite and all 195 held-out shapes in NT against cuBLAS's NT.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s35d
gpu_suite ${G_S:-330}
layout_sweep NT ${SWEEP_S:-110}
heldout_layout NT ${HL_S:-110}
archive session35_d
