#!/bin/bash
# Session 19: Nsight Compute's per-instruction stall samples (SourceCounters, WarpStateStats) on both sides of two
# aligned suite shapes at 0.99x, 512x8192x8192 (wide-128x256) and 8192x128x8192 (wide-64x128-k16): where the main
# loop's issue goes (87% / 85% against cuBLAS's 91% / 92%; prelude's stall_samples).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
stall_samples session19_b ${@:-512x8192x8192 8192x128x8192}
