#!/bin/bash
# Prepared in session 26, not yet run: the ragged shapes on wide-128x256-noedge against wide-128x256 with its edge
# split as committed and forced (lab/experiments/edge_split_ragged_ab.py), beside the plan and cuBLAS.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_ragged
lab_ab edge_split_ragged_ab ${AB_S:-400} ${SHAPES:-}
archive ragged_split
