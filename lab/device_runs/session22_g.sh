#!/bin/bash
# Session 22 (issue 20): the held-out sets that hold shapes the few-vector route now takes (op T, 9-16 vectors):
# held-out 1 (12x5120x13824; 16x13824x5120 stays on a member), 3 (10x8192x2048) and 4 (16x128256x2048,
# 12x8192x3072), through regtile.sgemm as committed.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
heldout_sweeps ${H_S:-70} 1 3 4
archive session22_g
