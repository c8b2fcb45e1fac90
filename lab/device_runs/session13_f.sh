#!/bin/bash
# Session 13 (issue 20): Nsight Compute on both sides of the skinny shapes below 85% of the copy bandwidth that
# could reach it by their FFMA count (lab/experiments/ncu_below.py --target with the shapes named).
. lab/device_runs/prelude.sh /tmp/rtc_s13
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
( time timeout ${NCU_S:-300} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target ${NCU_SHAPES:-16x4096x4096 32x4096x4096 48x2048x8192 2048x16x32768 16384x32x16384 32x1024x131072} ) \
    > $OUT/ncu_skinny.csv 2> $OUT/ncu_skinny.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_skinny.csv) regtile metric rows"; tail -3 $OUT/ncu_skinny.err
[ -f $OUT/ncu_below_order.json ] && python3 -m lab.experiments.ncu_below --table $OUT/ncu_skinny.csv $OUT/ncu_below_order.json \
    --json $OUT/ncu_skinny.json > $OUT/ncu_skinny.md; cut -c1-400 $OUT/ncu_skinny.md
