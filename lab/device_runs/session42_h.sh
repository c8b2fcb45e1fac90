#!/bin/bash
# Session 42: repacking in NT through regtile.sgemm (codegen/repack.py: both operands' rows unaligned along K and
# m n / (m + n) >= 1000: the plan copies them into padded rows, then runs the aligned GEMM).  The repack GPU tests and
# the API ones; the 12 suite and held-out NT shapes the rule takes (lab/device_runs/repack_nt_s42.json) through the
# sweep; then the NT suite.  Limits add up to 240 s (the session's device time is nearly spent).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
gpu_tests ${T_S:-70} "" tests/gpu/test_repack_gpu.py tests/gpu/test_api_gpu.py
_sweep "repacked NT" ${R_S:-80} repack-NT.json repack-NT.md repack-NT.log --suite lab/device_runs/repack_nt_s42.json --layout NT
grep '^\[' $OUT/repack-NT.log
layout_sweep NT ${SWEEP_S:-90}
archive session42_h
