#!/bin/bash
# Session 40: the fused split-K kernels programmatic with no trigger (codegen/emit_fusedk.PROGRAMMATIC, ENTRY; d_ea44d3f
# measured it): the fused, PDL, split-K and API GPU tests, then the suite in all four layouts.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s40
gpu_tests ${T_S:-200} "" tests/gpu/test_fusedk_gpu.py tests/gpu/test_pdl_gpu.py tests/gpu/test_splitk_gpu.py tests/gpu/test_api_gpu.py
sweep ${SWEEP_S:-120}
layout_sweep TN ${SWEEP_S:-120}
layout_sweep NT ${SWEEP_S:-120}
layout_sweep TT ${SWEEP_S:-120}
archive session40_e
