#!/bin/bash
# Prepared in session 40, not run there (its device time was spent).  First the PDL, fused and layout GPU tests
# (tests/gpu/test_pdl_gpu.py's fused test was written in session 40 and not run there); then the TN ring stand-in
# (layout_choice.ring_stand_in, 774bdfb) member by member on its two held-out shapes and six probe shapes
# (layout_candidates fused=1: the plan against the fused pick and every member); the held-out sets in TN and NT and
# the suite in TN with session 40's changes (the fused kernels programmatic, the table's suite rows).  The steps'
# limits add up to 520 s of the 600 a call may run.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s41
gpu_tests ${T_S:-120} "" tests/gpu/test_pdl_gpu.py tests/gpu/test_fusedk_gpu.py tests/gpu/test_layouts_gpu.py
lab_ab layout_candidates ${L_S:-120} fused=1 budget=$(( ${L_S:-120} - 30 )) TN:3136x64x576 TN:196x1152x384 \
    TN:192x1024x384 TN:1536x128x384 TN:3072x64x384 TN:2048x96x384 TN:2048x96x576 TN:1536x128x576
heldout_layout TN ${HL_S:-100}
heldout_layout NT ${HL_S:-100}
layout_sweep TN ${SWEEP_S:-80}
archive session41_a
