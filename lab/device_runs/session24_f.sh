#!/bin/bash
# Session 24 (issue 20): the whole GPU suite at the library as it lands (session24_e's run of it hit its 300 s
# limit at 100% of its progress, before pytest's summary).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s24
gpu_suite ${GPU_S:-420}
archive session24_f
