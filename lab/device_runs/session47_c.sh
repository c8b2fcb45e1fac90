#!/bin/bash
# Session 47's last code: the whole GPU suite (run b ran the GEMV, few-vector and batched GEMV files alone; the other
# GPU files import tests/gemm_checks.rel_err since session 46's review, not yet run on the GPU), memcheck on the
# batched GEMVs (their op T kernels share the column strip's float4 test), then Nsight Compute on both sides of the
# batches still below torch.bmm (lab/experiments/ncu_below.py's batched target: regtile.sgemm, or the fastest member
# timed where the pick was not it, against torch.bmm; issue 20 asks what bounds a shape that does not beat cuBLAS and
# which kernel cuBLAS runs there).  Limits add up to 590 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47c
gpu_suite ${G_S:-300}
batched_memcheck ${M_S:-60} gemv
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
( time timeout ${NCU_S:-230} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target NN:32x4096x128x4096 TN:32x2048x80x2048 NN:12x333x444x555 \
    TT:6x1024x768x512 TT:6x1024x768x512:tall-128x64-k16 NN:256x257x64x257 TN:256x257x64x257 NT:256x257x257x64 \
    NT:8x64x4096x14336 NT:8x64x4096x14336:plain-64x64 TN:10x777x555x333 TN:10x777x555x333:wide-64x128-k16 \
    ) > $OUT/ncu_batched.csv 2> $OUT/ncu_batched.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_batched.csv) regtile metric rows"; tail -3 $OUT/ncu_batched.err
[ -f $OUT/ncu_below_order.json ] && python3 -m lab.experiments.ncu_below --table $OUT/ncu_batched.csv \
    $OUT/ncu_below_order.json --json $OUT/ncu_batched.json > $OUT/ncu_batched.md; cut -c1-400 $OUT/ncu_batched.md
gzip $OUT/ncu_batched.csv
archive session47_c
