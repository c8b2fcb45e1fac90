#!/bin/bash
# Session 45: memcheck on the batched choice with regtile's own exact-size buffers (no torch: session45_d's torch-based
# run found no memory errors, but torch's caching allocator would hide a read past a batch's end, and cuda-python's
# cuGetProcAddress probes beside torch counted 34 API errors).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
( time timeout ${M_S:-400} compute-sanitizer --tool memcheck --error-exitcode 9 python3 lab/device_runs/batched_memcheck.py ) \
    > $OUT/memcheck.log 2>&1; echo "memcheck: rc $?"; grep -cE " ok$" $OUT/memcheck.log
grep -E "WRONG|ERROR SUMMARY|Invalid" $OUT/memcheck.log | sort | uniq -c | head -8
archive session45_e
