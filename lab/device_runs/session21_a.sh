#!/bin/bash
# Session 21 (issue 20): the two-stage loop's head hoisted to the end of the iteration before
# (codegen/ptx_loops.HOIST_HEAD), on and off against cuBLAS (lab/experiments/hoist_head_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s21
lab_ab hoist_head_ab ${AB_S:-480} "$@"
archive session21_a
