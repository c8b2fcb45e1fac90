#!/bin/bash
# Session 30 (issue 20): every unfused candidate member in NT and TN on the suite (lab/experiments/layout_candidates.py
# suite=...): the data a layout-aware table would be fitted on (not fitted this session), within the device time left.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s30g
lab_ab layout_candidates ${AB_S:-330} suite=benchmarks/shapes.json layouts=NT,TN budget=${BUDGET:-280} | tail -5
archive session30_g
