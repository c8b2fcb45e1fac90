#!/bin/bash
# Session 39 (issue 20): the whole GPU suite with the one-pass PTX kernel's trigger after its wait (c_5e6f424).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
gpu_suite ${G_S:-360}
archive session39_d
