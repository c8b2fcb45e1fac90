#!/bin/bash
# Session 19 (issue 20): with the pass's preload step (sass/preload.py) landed, the whole GPU suite, then the suite's
# sweep through regtile.sgemm (prelude's gpu_suite and sweep), in one call.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s19
gpu_suite ${GPU_S:-330}
sweep ${SWEEP_S:-180}
archive session19_h
