#!/bin/bash
# Session 25 (issue 20): the unaligned shapes' plans (wide-128x256 / tall-256x128 on the unaligned vector floats,
# the k16 members too) against the same config with the float copies instead (unaligned_rows: consecutive threads
# on consecutive floats, a warp's load one 128-byte line), and held at 168 registers on the k16 members.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
lab_ab variants_ab 400 "fc:unaligned_vectors=False;unaligned_rows=True" "fch:unaligned_vectors=False;unaligned_rows=True;max_registers=168" \
    4099x4093x4091 4095x4095x4095 1023x4095x2047 2047x4097x1023 6143x2047x3071 1111x3333x2222 5555x555x5555 129x4097x513 2999x7001x211
archive session25_b
