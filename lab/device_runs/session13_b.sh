#!/bin/bash
# Ran at 39eb686 and 93f98fb. The ring (FewVecTConfig.ring_stages) and its lab files were removed after 14df2b0 (slower than
# the plans as committed: docs/shapes.md); check out 14df2b0 to rerun.
# Session 13 (issue 20): Nsight Compute on 32x4096x4096 - regtile.sgemm's plan (skinny-m32) and two ring configs
# of the few-vector kernel (lab/experiments/ring_ncu_launch.py): issue, stall reasons, shared-memory wavefronts.
. lab/device_runs/prelude.sh /tmp/rtc_s13
SEC="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
MET="--metrics smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__bytes_read.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio"
( time timeout ${NCU_S:-200} ncu --clock-control none $SEC $MET -k regex:regtile \
    python3 -m lab.experiments.ring_ncu_launch ${SHAPE:-32 4096 4096} ${CFGS:-4,4,6,2 8,4,4,1} ) > $OUT/ring_ncu.log 2>&1
echo "ncu: rc $?"
grep -E "^  [a-zA-Z_0-9]+.*\(|issue_stalled|issue_active|inst_executed|Duration|Issue Slots Busy|Issued Warp|No Eligible|Active Warps Per|Warp Cycles Per Issued|Stall|Registers Per|Achieved Occupancy|Block Limit|Memory Throughput|DRAM Throughput|Compute \(SM\)|shared|ldgsts|ffma|dram__|lsu_wave" $OUT/ring_ncu.log | cut -c1-150 | head -120
