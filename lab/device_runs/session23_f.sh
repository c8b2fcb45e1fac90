#!/bin/bash
# Session 23 (issue 20): the library as it lands (988e461's kernels): the whole GPU suite (last at 6b70224,
# session 21), then the held-out sets that hold shapes the few-vector op T route takes (1, 3, 4).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
gpu_suite ${GPU_S:-330}
heldout_sweeps ${H_S:-70} 1 3 4
archive session23_f
