#!/bin/bash
# Session 47: where a batched GEMM kernel lets the next call be scheduled.  Run c's Nsight Compute timed NT 8 x
# 64x4096x14336 on wide-64x128-k16 (256 blocks in 396 slots) at 1284.7 us one call alone, against 1571.2 back to back
# in run a: the one-pass kernels trigger the next call right after their wait.  lab/experiments/batched_pdl_ab.py on
# the three batched sets: regtile.sgemm against the same config triggering at exit, and torch.bmm.  Limit 300 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s47d
lab_ab batched_pdl_ab ${P_S:-300} budget=270
archive session47_d
