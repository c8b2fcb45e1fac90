#!/bin/bash
# Session 35 (issue 20): the library with the SASS pass's barrier step (sass/barrier.py) - the suite and all 195
# held-out shapes in TN against cuBLAS's TN; then Nsight Compute on both sides of regtile's NT gap (its big kernel
# 1.0-1.8% behind its own NN, session 31) and of the suite's last NN / TN losses (lab/experiments/ncu_below.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s35b
layout_sweep TN ${SWEEP_S:-110}
heldout_layout TN ${HL_S:-110}
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
( time timeout ${N_S:-200} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target NN:4096x4096x4096 NT:4096x4096x4096 TN:4096x4096x4096 \
    NN:2049x2047x1025 NT:2049x2047x1025 NN:8192x128x8192 NN:700x35x2048 TN:700x35x2048 ) > $OUT/ncu_below.csv 2> $OUT/ncu_below.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_below.csv) regtile metric rows"; tail -3 $OUT/ncu_below.err
[ -f $OUT/ncu_below_order.json ] && python3 -m lab.experiments.ncu_below --table $OUT/ncu_below.csv $OUT/ncu_below_order.json \
    --json $OUT/ncu_below.json > $OUT/ncu_below.md; cut -c1-400 $OUT/ncu_below.md
archive session35_b
