#!/bin/bash
# Session 24 (issue 20): Nsight Compute on the fused kernel with the lean copies and without
# (lab/experiments/fusedk_spread_ncu.py: 65536x32x2048 and 8192x24x8192, where session24_b timed the lean kernel
# slower, and 32768x32x4096, where it is faster); a line of counters a launch, then the stall samples.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s24
( time timeout ${NCU_S:-300} ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section LaunchStats \
    --section Occupancy -k "regex:regtile_fusedk" -o $OUT/fk python3 -m lab.experiments.fusedk_spread_ncu "$@" ) \
    > $OUT/ncu.log 2>&1
echo "ncu: rc $?"; grep -v "^==PROF==" $OUT/ncu.log | tail -3
cat $OUT/fusedk_spread_ncu.json | tr -d '\n ' ; echo
ncu -i $OUT/fk.ncu-rep --page details --csv > $OUT/details.csv 2> $OUT/ncu.err
python3 - $OUT/details.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ("Duration", "Executed Instructions", "Issue Slots Busy", "Registers Per Thread", "DRAM Throughput",
        "L2 Cache Throughput", "L1/TEX Cache Throughput", "Warp Cycles Per Issued Instruction", "Achieved Occupancy",
        "Active Warps Per Scheduler", "Eligible Warps Per Scheduler", "No Eligible", "Waves Per SM",
        "Stall Long Scoreboard", "Stall Barrier", "Stall MIO Throttle", "Stall LG Throttle", "Stall Short Scoreboard",
        "Stall Wait", "Stall Not Selected", "Stall Math Pipe Throttle")
seen = {}
for r in rows:
    if r["Metric Name"] in want:
        seen.setdefault(r["ID"], []).append(f"{r['Metric Name']}={r['Metric Value']}")
for k, v in seen.items():
    print(k, "; ".join(v))
PY
ncu -i $OUT/fk.ncu-rep --page raw --csv --metrics smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active > $OUT/raw.csv 2>> $OUT/ncu.err
cut -c1-600 $OUT/raw.csv | head -16
archive session24_c
