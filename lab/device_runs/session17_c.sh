#!/bin/bash
# Session 17, the last calls: the whole GPU suite with GPU=1, else
# held-out 4, 1, 2, 3 and 5 and the suite's sweep through regtile.sgemm with the table as committed.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s17
if [ "${GPU:-0}" = 1 ]; then
  gpu_suite ${GPU_S:-500}
else
  heldout_sweeps ${H_S:-75} 4 1 2 3 5
  sweep ${SWEEP_S:-150}
fi
archive session17_c${GPU:-0}
