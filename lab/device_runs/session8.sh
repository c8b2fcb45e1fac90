#!/bin/bash
# Session 8, first run (issue 20): the clamped edge sources (config.py edge_clamp, on in every PTX member).
#   1. the whole GPU suite: every member on ragged shapes with the clamp (M, N and K edges, aligned rows or
#      not, the layouts), and the cp.async ring's GPU test (written after session 7's last GPU call);
#   2. each member with and without the clamp on ragged shapes, interleaved with cuBLAS
#      (lab/experiments/tiny_longk_kernels.py), and at 4096^3 (no edge: the interior unchanged).
. lab/device_runs/prelude.sh /tmp/rtc_s8
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8
gpu_suite 220
grep -E "cp_async_ring" $OUT/pytest_gpu.log | head -3
X=edge_clamp=0
( timeout 310 python3 -m lab.experiments.tiny_longk_kernels \
    2000x2000x2000:wide-128x256-noedge,wide-128x256-noedge+$X,wide-64x128-k16,wide-64x128-k16+$X,tall-256x128 \
    7000x1760x1760:tall-128x64-k16,tall-128x64-k16+$X,wide-128x256-noedge,tall-256x128 \
    700x5124x2048:wide-64x128-k16,wide-64x128-k16+$X,wide-128x256-noedge \
    5000x5000x5000:wide-128x256,wide-128x256-noedge,wide-128x256-noedge+$X \
    4096x4096x4096:wide-128x256,wide-128x256+$X \
    3000x512x2816:wide-64x128-k16,wide-64x128-k16+$X 1000x1000x1000:wide-64x128,wide-64x128+$X,wide-64x128-k16 \
    100000x64x512:tall-128x64-k16,tall-128x64-k16+$X ) > $OUT/clamp.log 2>&1
echo "clamp A/B: rc $?"; grep -v Warn $OUT/clamp.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-150
