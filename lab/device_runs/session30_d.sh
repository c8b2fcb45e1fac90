#!/bin/bash
# Session 30 (issue 20): the fused split-K kernel on B^T (nn.Linear's NT; until now another member ran there).
# The whole GPU suite (the fused members on B^T over the ragged shapes among it), then lab/experiments/fused_nt_ab.py
# (the fused member on B^T against the unfused member that ran before and cuBLAS's NT), then the suite's NT sweep.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s30d
gpu_suite ${GPU_S:-300}
lab_ab fused_nt_ab ${AB_S:-120}
layout_sweep NT ${SWEEP_S:-150}
archive session30_d
