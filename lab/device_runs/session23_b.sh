#!/bin/bash
# Session 23 (issue 20): the shared-memory op T kernel reading its vectors in place (direct_vectors, no stage
# launch) against the committed plan, three forms of its copy loads (lab/experiments/direct_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
lab_ab direct_ab ${AB_S:-240} "$@"
archive session23_b
