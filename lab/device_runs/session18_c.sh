#!/bin/bash
# Session 18: Nsight Compute's per-instruction stall samples (SourceCounters, WarpStateStats) on both sides of the two
# held-out shapes below 0.9x, 2047x4097x1023 (tall-256x128) and 5555x555x5555 (tall-128x64-k16), both on the unaligned
# rows' vector floats (prelude's stall_samples; `python3 -m lab.experiments.ncu_source_stalls` reads the source page).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s18
stall_samples session18_c ${@:-2047x4097x1023 5555x555x5555}
