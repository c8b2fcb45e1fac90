#!/bin/bash
# Session 45: batched GEMMs of real workloads (benchmarks/shapes-batched.json: attention without a fused kernel,
# its backward, decode attention, mixture-of-experts projections, batches of plain GEMMs) against torch.bmm, with
# every batched member that fits each shape (lab/experiments/batched_sweep.py members=1); then the whole GPU suite
# at session 44's last code (the TT stand-in had not been through it).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
lab_ab batched_sweep ${B_S:-240} members=1
gpu_suite ${G_S:-290}
archive session45_b
