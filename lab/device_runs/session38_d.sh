#!/bin/bash
# Session 38 (issue 20): are the two back-to-back anomalies of this session's runs programmatic dependent launch's?
# Under Nsight Compute (session38_c, one call at a time) TN 96x2048x768's ranges kernel at ranges of >= 32 k-tiles ran
# 21.3 us, timed back to back 34.3 (session38_b; 34.1 in session38_c); the k32 members' ring of 4 stages ran 3136x64x576 17.0 us back to back
# against 12.1 with 3 stages (session38_a, ring34).  The same runs with REGTILE_PDL=0 (plain launches).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
for pdl in 0 1; do
    export REGTILE_PDL=$pdl
    lab_ab streamk_iters_ab ${L_S:-120} iters=32 ${SHAPES:-TN:96x2048x768 TN:3072x64x512 TN:384x768x768 TN:32x3072x3072 \
        NN:96x2048x768 NN:384x768x768}
    mv $OUT/streamk_iters_ab.json $OUT/streamk_iters_ab_pdl$pdl.json; mv $OUT/streamk_iters_ab.log $OUT/streamk_iters_ab_pdl$pdl.log
    S="TN:3136x64x576 TN:512x512x512 TN:2048x64x2048"
    lab_ab layout_candidates ${R_S:-90} members=wide-32x64-k32,tall-64x32-k32 \
        "vary=r3:stages=3;sass_pass=False;hoist_head=False|r4:stages=4;sass_pass=False;hoist_head=False" $S $S
    mv $OUT/layout_candidates.json $OUT/ring34_pdl$pdl.json; mv $OUT/layout_candidates.log $OUT/ring34_pdl$pdl.log
done
archive session38_d
