#!/bin/bash
# Session 47's last code (after run b: the float4-past-N clamp only where 4 or more rows are in flight, since it made
# ptxas spill the one-row kernels; batch_choice.batched_gemv without the tiling strips).  The whole GPU suite, memcheck
# on the GEMV strips past N and on the batched GEMVs, the A/B against the float4 test of before (partial_strip_ab), the
# batched GEMV A/B on narrow head dims and on the out-of-sample p V batches (shapes=narrow, check), the third set's
# decode rows, then Nsight Compute on both sides of the batches still below torch.bmm (lab/experiments/ncu_below.py's
# batched target; issue 20 asks what bounds a shape that does not beat cuBLAS and which kernel cuBLAS runs there).
# Limits add up to 585 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47c
gpu_suite ${G_S:-280}
( timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 env SGEMV_CASES=strip \
    python3 tests/gpu/sgemv_memcheck_script.py ) > $OUT/memcheck_strip.log 2>&1
echo "memcheck strip: rc $?"; grep -E "WRONG|ERROR SUMMARY|done" $OUT/memcheck_strip.log | head -5
batched_memcheck ${M_S:-45} gemv
lab_ab partial_strip_ab 30
lab_ab batched_gemv_ab 30 shapes=narrow
mv $OUT/batched_gemv_ab.json $OUT/batched_gemv_ab_narrow.json; mv $OUT/batched_gemv_ab.log $OUT/batched_gemv_ab_narrow.log
lab_ab batched_gemv_ab 30 shapes=check
lab_ab batched_sweep 30 suite=benchmarks/shapes-batched-heldout-2.json only=decode
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
( time timeout ${NCU_S:-100} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target NN:32x4096x128x4096 TN:32x2048x80x2048 NN:12x333x444x555 \
    TT:6x1024x768x512 TT:6x1024x768x512:tall-128x64-k16 NN:256x257x64x257 TN:256x257x64x257 NT:256x257x257x64 \
    NT:8x64x4096x14336 NT:8x64x4096x14336:plain-64x64 TN:10x777x555x333 TN:10x777x555x333:wide-64x128-k16 \
    ) > $OUT/ncu_batched.csv 2> $OUT/ncu_batched.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_batched.csv) regtile metric rows"; tail -3 $OUT/ncu_batched.err
[ -f $OUT/ncu_below_order.json ] && python3 -m lab.experiments.ncu_below --table $OUT/ncu_batched.csv \
    $OUT/ncu_below_order.json --json $OUT/ncu_batched.json > $OUT/ncu_batched.md; cut -c1-400 $OUT/ncu_batched.md
gzip $OUT/ncu_batched.csv
archive session47_c
