#!/bin/bash
# Session 36 (issue 20): Nsight Compute on the cp.async ring against the two stages, with and without the SASS pass
# (lab/experiments/ncu_ring.py): the metrics of lab/experiments/ncu_below.py plus shared-memory wavefronts and the
# LSU's instruction counts.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s36b
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed_pipe_lsu.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio
( time timeout ${N_S:-240} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_ring "$@" ) > $OUT/ncu_ring.csv 2> $OUT/ncu_ring.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_ring.csv) regtile metric rows"; tail -3 $OUT/ncu_ring.err
python3 - $OUT/ncu_ring.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"'))]
by = collections.OrderedDict()
for r in rows:
    by.setdefault((r["ID"], r["Kernel Name"][:60]), {})[r["Metric Name"]] = r["Metric Value"]
for (i, name), ms in by.items():
    print(i, name)
    for key in sorted(ms):
        print("   ", key.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", ""), ms[key])
PY
archive session36_b
