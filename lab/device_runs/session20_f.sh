#!/bin/bash
# Session 20 (issue 20): Nsight Compute's per-instruction stall samples on both sides of 512x8192x8192 (wide-128x256)
# with the preload and tile-end steps in the pass: where the "wait" samples of session 19 (4.6% against cuBLAS's
# 0.3%, docs/data/session19/b_1abb0b5) went (prelude's stall_samples).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s20
stall_samples session20_f ${@:-512x8192x8192}
