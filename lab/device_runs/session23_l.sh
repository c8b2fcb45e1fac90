#!/bin/bash
# Session 23 (issue 20), after the review: the rule's op T shared-memory form chosen by compiling (runtime/fewvec.
# rule_config): the few-vector and API GPU tests, memcheck, and the plans regtile.sgemm builds for five shapes.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
fewvec_checks 150
python3 -c "
from regtile.runtime.plans import GemmPlan
for m, n, k in ((16, 4096, 4096), (15, 4096, 4096), (14, 4096, 4096), (12, 8192, 3072), (16, 24, 65536)):
    p = GemmPlan(m, n, k, False, False, k, n, n); print(m, n, k, p.describe()[:90], p.gemv.config.describe() if p.gemv else '')
" 2>&1 | tee $OUT/plans.log
archive session23_l
