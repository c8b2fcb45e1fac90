#!/bin/bash
# Prepared in session 22, not run (its device time was spent): the skinny-n prototype with the vectors through
# shared memory (lab/experiments/stream_n_proto.py) against regtile.sgemm's plan (few-vector op N) and cuBLAS.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
lab_ab stream_n_proto ${AB_S:-300} "$@"
archive session22_h
