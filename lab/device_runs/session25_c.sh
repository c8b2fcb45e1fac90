#!/bin/bash
# Session 25 (issue 20): the k16 members (wide-64x128-k16, tall-128x64-k16) on unaligned rows: the vector floats
# as committed against the float copies (fc) and the float copies held at 168 registers (fch: three blocks an SM,
# as the vector-float kernels run), on the suite's and held-out sets' unaligned shapes that run those members.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s25
lab_ab variants_ab 400 "fc:unaligned_vectors=False;unaligned_rows=True" "fch:unaligned_vectors=False;unaligned_rows=True;max_registers=168" \
    5555x555x5555 1009x1013x1019 1023x1025x1023 255x257x65537 999x999x999 129x4097x513 777x7777x777 3001x3001x64 \
    5555x555x5557 2777x555x5555 5555x1111x2777 3333x777x3333
archive session25_c
