#!/bin/bash
# Session 36 (issue 20): the unaligned rows' float copies on the big members with the SASS pass, against the vector
# floats the plans run (lab/experiments/float_copies_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s36c
lab_ab float_copies_ab ${L_S:-400} "$@"
archive session36_c
