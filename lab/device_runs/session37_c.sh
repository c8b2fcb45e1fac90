#!/bin/bash
# Session 37 (issue 20): the library with TN's ring form (operand_forms.for_ring: the small 4x4 members' cp.async ring
# of four stages where K holds more than 16 k-tiles) - its GPU tests and the ring's, the suite and all 195 held-out
# shapes in TN against cuBLAS's TN (session 35: 1.238, 114 of 123; held-out 1.204, 172 of 195), then the ring on the
# skinny members' TN picks, which the form leaves out (not measured before).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37a
gpu_tests ${T_S:-150} "tn_ring or cp_async_ring or layouts" tests/gpu/test_api_gpu.py tests/gpu/test_family_gpu.py \
    tests/gpu/test_layouts_gpu.py
layout_sweep TN ${SWEEP_S:-110}
heldout_layout TN ${HL_S:-110}
lab_ab unaligned_ring_ab ${L_S:-90} stages=4 forms=r TN:5120x8x5120 TN:8192x16x8192 TN:2048x16x32768 \
    TN:11008x16x4096 TN:16x13824x5120 TN:3584x12x3584 TN:8192x16x4096 TN:32000x8x4096
archive session37_c
