#!/bin/bash
# Session 18: the cp.async ring (3 and 4 stages, 4-byte copies on unaligned rows) against the unaligned vector floats on
# the members of the held-out shapes below 0.9x and 1023x4095x2047 (lab/experiments/unaligned_pairs_ab.py
# variants=ring3,ring4; VARIANTS=... for others, e.g. member:NAME), as cuBLAS's aligna4 kernels run there (session18_c).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s18
( time timeout ${AB_S:-220} python3 -m lab.experiments.unaligned_pairs_ab variants=${VARIANTS:-ring3,ring4} \
    ${@:-2047x4097x1023 5555x555x5555 1023x4095x2047} ) > $OUT/ab.log 2>&1
echo "a/b: rc $?"; grep -E "^[0-9]+x" $OUT/ab.log | cut -c1-240
archive session18_d
