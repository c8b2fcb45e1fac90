#!/bin/bash
# Session 38 (issue 20): the library with stream-K's ranges kernel triggering the next kernel at its exit
# (codegen/emit_ptx.PDL_TRIGGER_AT_ENTRY = ("grid",)): the stream-K, PDL, API and layout GPU tests, then the suite in
# TN against cuBLAS's TN (session 37: 1.234, 115 of 123).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s38
gpu_tests ${T_S:-170} "${KEXPR:-not slow}" tests/gpu/test_streamk_gpu.py tests/gpu/test_pdl_gpu.py \
    tests/gpu/test_api_gpu.py tests/gpu/test_layouts_gpu.py
layout_sweep TN ${SWEEP_S:-130}
archive session38_f
