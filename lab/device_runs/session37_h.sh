#!/bin/bash
# Session 37 (issue 20): which Nsight Compute counters hold the cp.async ring's shared-memory writes (LDGSTS), now that
# TN's small members run it (operand_forms.for_ring): the shared-memory metrics ncu knows on this chip that name
# ldgsts, then regtile's TN 512^3 (sq-32x32 as the ring of four stages) and NN 512^3 (the same member's two-stage loop)
# under ncu (lab/experiments/ncu_below.py --target; cuBLAS's kernels profiled beside them), for the static model's
# prediction (regtile inspect --member sq-32x32 --trans-a --stages 4 --no-hoist-head --backend ptx --m 512 --n 512
# --k 512: 1,048,576 shared-load and 262,144 "store" wavefronts, no conflicts).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s37h
ncu --query-metrics --chip gh100 > $OUT/query_metrics.txt 2>&1
grep -i "shared" $OUT/query_metrics.txt | grep -i -E "ldgsts|op_st |op_ld |mem_shared " | cut -c1-160
X=$(awk '{print $1}' $OUT/query_metrics.txt | grep -E "^l1tex__.*(shared.*ldgsts|ldgsts.*shared)" | sed 's/$/.sum/' | paste -sd, -)
echo "ldgsts shared metrics: ${X:-none}"
M=${M:-l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_ldgsts.sum,gpu__time_duration.sum${X:+,$X}}
( timeout ${N_S:-150} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_below --target ${TARGETS:-TN:512x512x512 NN:512x512x512} ) > $OUT/ncu_ring_smem.csv 2> $OUT/ncu_ring_smem.err
echo "ncu: rc $?"; tail -3 $OUT/ncu_ring_smem.err
grep '"regtile_' $OUT/ncu_ring_smem.csv | awk -F'","' '{print $5" | "$(NF-2)" | "$NF}' | cut -c1-200
archive session37_h${SUFFIX:-}
