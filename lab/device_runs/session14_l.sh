#!/bin/bash
# Session 14: Nsight Compute on both sides of the held-out losses (odd leading dimensions at mid sizes, and the
# model's pick on 4096x32x11008), lab/experiments/ncu_below.py --target with the shapes named.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s14l
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
( time timeout ${NCU_S:-240} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target ${NCU_SHAPES:-2047x4097x1023 1023x4095x2047 1024x50257x768 4096x32x11008} ) \
    > $OUT/ncu_heldout.csv 2> $OUT/ncu_heldout.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_heldout.csv) regtile metric rows"; tail -3 $OUT/ncu_heldout.err
[ -f $OUT/ncu_below_order.json ] && python3 -m lab.experiments.ncu_below --table $OUT/ncu_heldout.csv $OUT/ncu_below_order.json \
    --json $OUT/ncu_heldout.json > $OUT/ncu_heldout.md; cut -c1-600 $OUT/ncu_heldout.md
tar czf $REAL_OUT/session14_l.tgz -C $REAL_OUT r && rm -rf $OUT
