#!/bin/bash
# Session 46, the batched GEMV rule from run b's A/B (codegen/batch_choice.batched_gemv: op T's strips narrow where the
# batch's strips are few, 8 float4 loads a lane on long op N rows, the GEMM members only below half the SMs): the
# whole GPU suite (the new batched GEMV tests with it), memcheck on the GEMV batches, the A/B again (a second run of
# its candidates, the rule's pick as "lib"), both batched sets.  Limits add up to 540 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s46c
gpu_suite ${G_S:-300}
batched_memcheck ${M_S:-90} gemv
lab_ab batched_gemv_ab ${A_S:-70}
batched_sets ${H_S:-40} ${B_S:-40}
archive session46_c
