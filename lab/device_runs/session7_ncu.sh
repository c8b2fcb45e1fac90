#!/bin/bash
# Session 7, issue 20: Nsight Compute on both sides of every suite shape below 1.0x
# (lab/experiments/ncu_below.py), and where the ragged aligned shapes lose their time: the 256x128
# and 128x256 members at 2000^3 against the same kernels with M, N or both at 2048 (K = 2000),
# interleaved with cuBLAS, per-kernel device times (lab/experiments/tiny_longk_kernels.py).
. lab/device_runs/prelude.sh /tmp/rtc_s7
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
( time timeout 330 ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target ${NCU_SHAPES:-} ) > $OUT/ncu_below.csv 2> $OUT/ncu_below.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_below.csv) regtile metric rows"; tail -3 $OUT/ncu_below.err
[ -f $OUT/ncu_below_order.json ] && python3 -m lab.experiments.ncu_below --table $OUT/ncu_below.csv $OUT/ncu_below_order.json \
    --json $OUT/ncu_below.json > $OUT/ncu_below.md; cat $OUT/ncu_below.md | cut -c1-220
E=tall-256x128,wide-128x256-noedge,wide-128x256
( timeout 120 python3 -m lab.experiments.tiny_longk_kernels 2000x2000x2000:$E 2048x2048x2000:$E 2000x2048x2000:$E \
    2048x2000x2000:$E 2048x2048x2048:$E ) > $OUT/edges.log 2>&1; echo "edges: rc $?"; cut -c1-230 $OUT/edges.log
