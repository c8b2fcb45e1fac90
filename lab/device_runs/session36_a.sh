#!/bin/bash
# Session 36 (issue 20): the cp.async ring (stages 3 / 4) with 4-byte copies on unaligned rows against the plans as
# committed (the vector floats through staging registers, the SASS pass) and the same config without the pass
# (lab/experiments/unaligned_ring_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s36a
lab_ab unaligned_ring_ab ${L_S:-400} "$@"
archive session36_a
