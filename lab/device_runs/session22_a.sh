#!/bin/bash
# Session 22 (issue 20): the skinny-m streaming prototype (lab/experiments/stream_t_proto.py: B read
# straight into registers, A staged in shared memory) against regtile.sgemm's plan and cuBLAS.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s22
lab_ab stream_t_proto ${AB_S:-420} "$@"
archive session22_a
