#!/bin/bash
# Session 19 (issue 20): where the remaining misses stand, at the current commit.
# 1. Nsight Compute on both sides (lab/experiments/ncu_below.py --target) of the suite's shapes below 1.0x and the
#    skinny shapes below 85% of copy that their FFMA count lets reach it (NCU_SHAPES to change the list).
# 2. Every candidate member of lab/device_runs/session19_losers.json (the suite's and the held-out sets' shapes
#    below 1.0x at 3cb7c7c, 20 shapes) against cuBLAS: is there a member that beats it (shape_sweep --candidates)?
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
if [ "${SKIP_NCU:-0}" != 1 ]; then
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
( time timeout ${NCU_S:-320} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target ${NCU_SHAPES:-512x512x512 700x35x2048 32768x32x4096 8192x128x8192 \
    512x8192x8192 512x16384x4096 4099x4093x4091 16384x16384x16384 16x4096x4096 32x4096x4096 48x2048x8192 \
    2048x16x32768 16384x32x16384 32x1024x131072} ) > $OUT/ncu.csv 2> $OUT/ncu.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu.csv) regtile metric rows"; tail -3 $OUT/ncu.err
[ -f $OUT/ncu_below_order.json ] && python3 -m lab.experiments.ncu_below --table $OUT/ncu.csv $OUT/ncu_below_order.json \
    --json $OUT/ncu.json > $OUT/ncu.md; cut -c1-300 $OUT/ncu.md
gzip -f $OUT/ncu.csv
fi
candidates lab/device_runs/session19_losers.json $OUT/candidates.json ${CAND_S:-170}
archive session19_a
