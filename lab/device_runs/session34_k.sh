#!/bin/bash
# Session 34 (issue 20): the fused kernel's split arrival by release / acquire against __threadfence
# (lab/experiments/fused_arrival_ab.py), then the fused GPU tests with it.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34k
lab_ab fused_arrival_ab ${L_S:-100}
gpu_tests ${T_S:-120} "fused" tests/gpu/test_fusedk_gpu.py
archive session34_k
