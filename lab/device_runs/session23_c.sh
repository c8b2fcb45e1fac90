#!/bin/bash
# Session 23 (issue 20): Nsight Compute on 16x4096x4096's shared-memory op T kernel as committed and on the
# prototype it came from (lab/experiments/stream_t_proto.py l16w8), which runs 4-5% faster in the same call;
# direct_ab (session23_b) showed the stage launch is not the difference.  Two launches of each main kernel.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s23
( time timeout ${NCU_S:-300} ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section LaunchStats \
    --section SourceCounters -k "regex:stream_t_l16w8_16$|regtile_fewvec_ts16x16_v16_[0-9a-f]+$" \
    --launch-skip 6 --launch-count 4 -o $OUT/ts python3 -m lab.experiments.stream_t_proto \
    "variants=l16w8:L=16,W=8,U=4,MINB=2" 16x4096x4096 ) > $OUT/ncu.log 2>&1
echo "ncu: rc $?"; grep -v "^==PROF==" $OUT/ncu.log | tail -5
ncu -i $OUT/ts.ncu-rep --page details --csv > $OUT/details.csv 2> $OUT/ncu.err
python3 - $OUT/details.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ("Duration", "Executed Instructions", "Issue Slots Busy", "Registers Per Thread", "Memory Throughput",
        "DRAM Throughput", "L2 Cache Throughput", "L1/TEX Cache Throughput", "Warp Cycles Per Issued Instruction",
        "Active Warps Per Scheduler", "Eligible Warps Per Scheduler", "Issued Warp Per Scheduler",
        "No Eligible", "Avg. Active Threads Per Warp", "Branch Instructions", "Mem Busy", "Max Bandwidth")
seen = {}
for r in rows:
    if r["Metric Name"] in want:
        seen.setdefault((r["ID"], r["Kernel Name"][:34]), []).append(f"{r['Metric Name']}={r['Metric Value']}")
for k, v in seen.items():
    print(k, "; ".join(v))
PY
ncu -i $OUT/ts.ncu-rep --page raw --csv --metrics smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_sample_count > $OUT/raw.csv 2>> $OUT/ncu.err
cut -c1-400 $OUT/raw.csv | head -8
archive session23_c
