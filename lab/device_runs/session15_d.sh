#!/bin/bash
# Session 15, the end: the whole GPU suite (C staged on every PTX member included), then held-out 1 and 2 through
# regtile.sgemm (HELD=0: not), and the suite's sweep where SWEEP=1.  One archive ($OUT/session15_d.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s15
gpu_suite ${GPU_S:-450}  # 4m09s at b32b38f (1967 tests); 330 s stopped it at 98%
if [ "${HELD:-1}" = 1 ]; then
    sweep_suite benchmarks/shapes-heldout.json heldout1 ${H_S:-75}
    sweep_suite benchmarks/shapes-heldout-2.json heldout2 ${H_S:-75}
fi
[ "${SWEEP:-0}" = 1 ] && sweep ${SWEEP_S:-120}
archive session15_d
