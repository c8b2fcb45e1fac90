#!/bin/bash
# Session 47's last code: the whole GPU suite (run b ran the GEMV, few-vector and batched GEMV files alone; the other
# GPU files import tests/gemm_checks.rel_err since session 46's review, not yet run on the GPU), then memcheck on the
# batched GEMVs (their op T kernels share the column strip's float4 test).  Limits add up to 380 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47c
gpu_suite ${G_S:-300}
batched_memcheck ${M_S:-80} gemv
archive session47_c
