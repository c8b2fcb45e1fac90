#!/bin/bash
# Session 45's last run, at the session's last code (tall-256x128 a batched candidate, the grid's z limit, the review's
# tests): the batched and split-K GPU tests and the API tests, memcheck on exact-size buffers (more of the chosen tiles
# on ragged C), the batched suite and held-out set.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s45
gpu_tests ${T_S:-150} "batch or split or api" tests/gpu/test_api_gpu.py tests/gpu/test_splitk_gpu.py tests/gpu/test_layouts_gpu.py tests/gpu/test_fewvec_gpu.py
( timeout ${M_S:-180} compute-sanitizer --tool memcheck --error-exitcode 9 python3 lab/device_runs/batched_memcheck.py ) \
    > $OUT/memcheck.log 2>&1; echo "memcheck: rc $?"; grep -cE " ok$" $OUT/memcheck.log
grep -E "WRONG|ERROR SUMMARY" $OUT/memcheck.log | sort | uniq -c | head -5
lab_ab batched_sweep ${H_S:-80} suite=benchmarks/shapes-batched-heldout.json
mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout.log
lab_ab batched_sweep ${B_S:-80}
archive session45_g
