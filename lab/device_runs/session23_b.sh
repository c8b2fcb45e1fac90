#!/bin/bash
# Session 23 (issue 20): the shared-memory op T kernel reading its vectors in place (direct_vectors, no stage
# launch) against the committed plan, three forms of its copy loads (lab/experiments/direct_ab.py).  Runs at
# 04ebb84 only: the kernel form and the A/B were removed after the run (docs/data/session23/README.md).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
lab_ab direct_ab ${AB_S:-240} "$@"
archive session23_b
