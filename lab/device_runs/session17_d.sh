#!/bin/bash
# Session 17: Nsight Compute's per-instruction stall samples (SourceCounters) on regtile's kernel for 4099x4093x4091
# (wide-128x256-noedge, unaligned vector floats) and 4096^3 (the same member, aligned rows), one call each through
# lab/experiments/ncu_below.py --target; the source page as CSV (SASS) for each kernel.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s17
( time timeout ${NCU_S:-300} ncu --clock-control none --profile-from-start off --section SourceCounters \
    --section WarpStateStats -k regex:regtile_sgemm -o $OUT/stalls \
    python3 -m lab.experiments.ncu_below --target 4099x4093x4091 4096x4096x4096 ) > $OUT/ncu.log 2>&1
echo "ncu: rc $?"; tail -4 $OUT/ncu.log
ncu -i $OUT/stalls.ncu-rep --page source --csv --print-source sass > $OUT/source_sass.csv 2> $OUT/source.err
echo "source page: rc $? $(wc -l < $OUT/source_sass.csv) lines"; head -3 $OUT/source.err
ncu -i $OUT/stalls.ncu-rep --page details --csv > $OUT/details.csv 2>> $OUT/source.err
echo "details: rc $? $(wc -l < $OUT/details.csv) lines"
archive session17_d
