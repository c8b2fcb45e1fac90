#!/bin/bash
# Issue 20 session 4 (helper lat), device run 2, from the repository root on the GPU machine:
# the fused kernel's GPU tests (the knobs fused_stages / fused_sum_loads on ragged shapes against
# float64, poisoned C) and the family's for the new split-K members; compute-sanitizer memcheck
# and racecheck of the knobs' kernel; every candidate of the shapes where a new split-K member is
# one; per-kernel device times and an Nsight Compute pass of the tiny and under-filled shapes
# (lab/experiments/tiny_longk_kernels.py).
. lab/device_runs/prelude.sh /tmp/rtc_lat
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_lat
python3 lab/device_runs/shapes_session4_prep.py /tmp/cand.json /tmp/lib.json
( time timeout 65 python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_fusedk_gpu.py tests/gpu/test_family_gpu.py \
    -k "fused or splitk-32x32-f8 or splitk-32x64-f8" ) > $OUT/pytest_gpu.log 2>&1
echo "gpu tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_gpu.log | head -8

K="test_fused_knobs_are_right and 32x32-s6-l32"
( time timeout 35 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_fusedk_gpu.py -k "$K and (700 or 129-)" ) > $OUT/sanitizer_memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|passed|failed" $OUT/sanitizer_memcheck.log | head -3
( time timeout 35 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_fusedk_gpu.py -k "$K and 129-" ) > $OUT/sanitizer_racecheck.log 2>&1
echo "racecheck: rc $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|passed|failed" $OUT/sanitizer_racecheck.log | head -3
( time timeout 50 python3 -m regtile.tools.shape_sweep --candidates --suite /tmp/cand.json \
    --json $OUT/shape-candidates-session4-run2.json --budget-s 40 ) > $OUT/candidates.log 2>&1
echo "candidates: rc $?"; grep -E "compiled|^\[" $OUT/candidates.log | cut -c1-120
( timeout 30 python3 -m lab.experiments.tiny_longk_kernels ) > $OUT/kernels.log 2>&1; echo "kernels: rc $?"; cut -c1-200 $OUT/kernels.log
M=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,sm__cycles_active.avg,launch__waves_per_multiprocessor,dram__bytes_read.sum,lts__t_sectors_op_read.sum,smsp__warps_active.avg.per_cycle_active
( timeout 45 ncu --clock-control none --metrics $M --csv -k "regex:regtile|cutlass|gemm|splitK|xmma" \
    python3 -m lab.experiments.tiny_longk_kernels --ncu-target ) > $OUT/ncu_tiny.csv 2> $OUT/ncu_tiny.err
echo "ncu: rc $? $(grep -c regtile $OUT/ncu_tiny.csv) rows"
