#!/bin/bash
# Session 31 (issue 20): the few-vector GPU tests and memcheck at the session's last library; the held-out sets
# through regtile.sgemm in NN (sets 1-5, as every session), then all 195 held-out shapes in NT and TN against
# cuBLAS's same layout (first measured: lab/device_runs/heldout_all_s30.json, the five sets in one file).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s31e
fewvec_checks ${T_S:-120}
heldout_sweeps ${H_S:-70} 1 2 3 4 5
for layout in NT TN; do heldout_layout $layout ${HL_S:-110}; done
archive session31_e
