#!/bin/bash
# Session 28 (issue 20): the library as session 27 left it (vector trim, C staged by ldc, review mends) - the whole
# GPU suite (never run at a session-27 commit; includes the graph capture of a trimmed plan), then the suite's sweep.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s28
gpu_suite ${GPU_S:-330}
sweep ${SWEEP_S:-150}
archive session28_a
