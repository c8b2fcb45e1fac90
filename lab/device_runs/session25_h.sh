#!/bin/bash
# Session 25 (issue 20): the whole GPU suite on the library as it lands (958db1f's; ca6084b adds docs only).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
gpu_suite ${GPU_S:-400}
archive session25_h
