#!/bin/bash
# Session 38 (issue 20): why TN's ring runs long stream-K ranges 2-3x slower per k-tile than its whole tiles
# (session38_b: 96x2048x768 on wide-32x64's ring, 144 ranges of 32 k-tiles 34.3 us, 96 whole tiles of 48 k-tiles
# 16.0).  1) The same in the two-stage loop (two=1: "two_iN") and in NN (lab/experiments/streamk_iters_ab.py);
# 2) Nsight Compute on the TN plan at ranges of >= 8, >= 32 k-tiles and whole tiles (ncu_below --min-iters).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
[ "${AB:-1}" = 1 ] && lab_ab streamk_iters_ab ${L_S:-200} iters=16,32 two=1 ${SHAPES:-TN:96x2048x768 TN:3072x64x512 TN:384x768x768 \
    TN:2048x256x512 TN:32x3072x3072 NN:96x2048x768 NN:3072x64x512 NN:384x768x768 NN:512x512x512 NN:192x1024x768 \
    NN:2048x256x512 NN:32x3072x3072}
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
for it in ${ITERS:-8 32 100000}; do
    ( timeout ${N_S:-100} ncu --clock-control none --profile-from-start off --metrics $M --csv \
        python3 -m lab.experiments.ncu_below --target --min-iters=$it ${NCU_SHAPES:-TN:96x2048x768 NN:96x2048x768} ) \
        > $OUT/ncu_iters$it.csv 2> $OUT/ncu_iters$it.err
    echo "ncu min_iters $it: rc $?"; tail -2 $OUT/ncu_iters$it.err
done
archive session38_c
