#!/bin/bash
# Session 36 (issue 20): the ring's float copies A/B again (7e95f4f never emitted them: the path fell through to the
# checked copies), Nsight Compute on the float copies (two stages, pass on) and the ring, and the ring's GPU tests.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s36d
lab_ab unaligned_ring_ab ${L_S:-150} stages=3 forms=r NT:4099x4093x4091 NT:2049x2047x1025 NN:4095x4095x4095
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed_pipe_lsu.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
( time timeout ${N_S:-120} ncu --clock-control none --profile-from-start off --metrics $M --csv \
    python3 -m lab.experiments.ncu_ring NT:4099x4093x4091 ) > $OUT/ncu_ring.csv 2> $OUT/ncu_ring.err
echo "ncu: rc $? $(grep -c '"regtile_' $OUT/ncu_ring.csv) regtile metric rows"; tail -2 $OUT/ncu_ring.err
gpu_tests ${T_S:-150} "ring" tests/gpu/test_family_gpu.py
archive session36_d
