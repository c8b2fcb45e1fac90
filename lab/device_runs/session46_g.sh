#!/bin/bash
# Session 46's last code: the whole GPU suite (the review's mends changed runtime/gemv.gemv_route for unbatched GEMVs
# too, and run f ran the batched GEMV tests alone).  Limit 300 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s46g
gpu_suite ${G_S:-300}
archive session46_g
