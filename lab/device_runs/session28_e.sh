#!/bin/bash
# Session 28 (issue 20), with the device time left (about 300 s): lab/experiments/edge_vector_path_off_ab.py - the plan
# regtile.sgemm builds against the same config without the edge vector path, now that the path shapes only last
# k-tiles, on six shapes whose members have it on.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s28
lab_ab edge_vector_path_off_ab ${AB_S:-190} ${SHAPES:-}
archive session28_e
