#!/bin/bash
# Session 22 (issue 20): op T through shared memory in its one-loop form with __ldcg staged loads (ec this
# commit): the few-vector GPU tests and memcheck; the plans against the heuristic's member (member@table) on
# the suite's and held-out sets' shapes the route now takes; then the suite's sweep.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
fewvec_checks 300
( time timeout 200 python3 -m lab.experiments.variants_ab "member@table:" 16x2048x2048 16x5120x5120 16x4096x1024 \
    16x1024x4096 16x16384x4096 16x4096x16384 16x4096x4096 10x8192x2048 16x128256x2048 12x8192x3072 \
    12x5120x13824 16x13824x5120 15x4096x4096 14x4096x4096 ) > $OUT/variants.log 2>&1
echo "variants: rc $?"; cut -c1-250 $OUT/variants.log | grep -v "^$"
sweep ${SWEEP_S:-170}
archive session22_e
