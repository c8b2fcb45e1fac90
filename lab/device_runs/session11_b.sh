#!/bin/bash
# Session 11 (issue 20): unaligned rows on the big tiles - lab/experiments/unaligned_copies_ab.py (the vector
# floats as committed against the float copies, and sq-128x128-edges), then Nsight Compute on one call each of
# both regtile kernels and cuBLAS at 8191x8193x1025: issue, stalls and the L1's LSU wavefronts (shared and
# global), the counters of the hypothesis that the vector floats' 4-byte loads crowd the fragment loads' pipe.
. lab/device_runs/prelude.sh /tmp/rtc_s11
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s11
( time timeout 300 python3 -m lab.experiments.unaligned_copies_ab ${SHAPES:-} ) > $OUT/unaligned_copies_ab.log 2>&1
echo "unaligned_copies_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/unaligned_copies_ab.log | cut -c1-300
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS + (
    'l1tex__data_pipe_lsu_wavefronts.sum', 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum',
    'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', 'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum',
    'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 'l1tex__throughput.avg.pct_of_peak_sustained_active')))")
( time timeout 200 ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.unaligned_copies_ab ncu ${NCU_SHAPE:-8191x8193x1025} ) > $OUT/ncu_unaligned.csv 2> $OUT/ncu_unaligned.err
echo "ncu: rc $?"; tail -3 $OUT/ncu_unaligned.err
python3 - $OUT/ncu_unaligned.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; k = head.index("Kernel Name"); mn = head.index("Metric Name"); mv = head.index("Metric Value"); i = head.index("ID")
per = collections.OrderedDict()
for r in rows[1:]:
    per.setdefault((r[i], r[k][:60]), {})[r[mn]] = r[mv]
for (idx, name), m in per.items():
    print(idx, name)
    for key in sorted(m):
        if any(s in key for s in ("wavefronts", "requests", "sectors", "issue_active", "stalled_wait", "mio", "lg_thr",
                                  "short_score", "long_score", "duration", "l1tex__throughput", "registers")):
            print("   ", key, m[key])
PY
