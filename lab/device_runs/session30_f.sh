#!/bin/bash
# Session 30 (issue 20): every unfused candidate member, generated for the layout, on the suite's NT and TN losses
# (lab/experiments/layout_candidates.py): would another member beat cuBLAS there (a layout-aware table's case), or
# does none (the kernels' case)?
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s30f
lab_ab layout_candidates ${AB_S:-300}
archive session30_f
