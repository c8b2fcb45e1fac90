#!/bin/bash
# Session 46, the last code: a third batched set, never fitted (benchmarks/shapes-batched-heldout-2.json: Swin, BERT-large,
# Llama-3, Phi-2, Gemma, SAM attention, decode with heads of 64-256 and ragged contexts, Qwen2 / OLMoE / Mixtral MoE,
# ragged and transposed batches) with every member, then the batched suite and held-out set with every member (the
# batched GEMV route's rows with the GEMM members beside it).  Limits add up to 330 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s46d
lab_ab batched_sweep ${T_S:-170} members=1 suite=benchmarks/shapes-batched-heldout-2.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout2.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout2.log
batched_sets ${H_S:-80} ${B_S:-80} members=1
archive session46_d
