#!/bin/bash
# Session 31 (issue 20): the whole GPU suite at the session's library, then the suite through regtile.sgemm against
# cuBLAS in NN, NT and TN (a fused pick's stand-in now by A's layout: skinny-n32-256 on A^T, fused_stand_in).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s31d
gpu_suite ${SUITE_S:-300}
sweep ${SWEEP_S:-120}
layout_sweep NT ${SWEEP_S:-120}
layout_sweep TN ${SWEEP_S:-120}
archive session31_d
