#!/bin/bash
# Session 19: Nsight Compute's per-instruction stall samples (SourceCounters, WarpStateStats) on both sides of two
# aligned suite shapes at 0.99x, 512x8192x8192 (wide-128x256) and 8192x128x8192 (wide-64x128-k16): where the
# main loop's issue goes (87% / 85% against cuBLAS's 91% / 92%) (lab/experiments/ncu_below.py --target: regtile's call, then torch.mm, one each under the
# profiler); the source page as CSV (SASS) for every kernel.  `python3 -m lab.experiments.ncu_source_stalls` reads it.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
( time timeout ${NCU_S:-300} ncu --clock-control none --profile-from-start off --section SourceCounters \
    --section WarpStateStats -o $OUT/stalls \
    python3 -m lab.experiments.ncu_below --target ${@:-512x8192x8192 8192x128x8192} ) > $OUT/ncu.log 2>&1
echo "ncu: rc $?"; tail -4 $OUT/ncu.log
ncu -i $OUT/stalls.ncu-rep --page source --csv --print-source sass > $OUT/source_sass.csv 2> $OUT/source.err
echo "source page: rc $? $(wc -l < $OUT/source_sass.csv) lines"; head -3 $OUT/source.err
ncu -i $OUT/stalls.ncu-rep --page details --csv > $OUT/details.csv 2>> $OUT/source.err
echo "details: rc $? $(wc -l < $OUT/details.csv) lines"; gzip $OUT/source_sass.csv
python3 -m lab.experiments.ncu_source_stalls <(zcat $OUT/source_sass.csv.gz) > $OUT/stalls.txt 2>&1; head -40 $OUT/stalls.txt
archive session19_b
