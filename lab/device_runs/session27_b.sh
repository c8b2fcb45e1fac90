#!/bin/bash
# Session 27 (issue 20): partial edge splits on wide-128x256 (lab/experiments/edge_split_partial_ab.py): the edge
# kernel on one ragged strip only, the other ragged dimension kept in the main kernel's tiles.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s27
lab_ab edge_split_partial_ab ${AB_S:-400} ${SHAPES:-}
archive session27_b
