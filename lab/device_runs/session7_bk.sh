#!/bin/bash
# Session 7, issue 20: a deeper k-tile (twice the work between a tile's global loads and their
# shared-memory store) for the members whose main loop ncu found waiting on global loads
# (long-scoreboard stalls 0.16-0.66 a issued instruction, cuBLAS 0.02-0.10: docs/shapes.md,
# session 7), interleaved with cuBLAS (lab/experiments/tiny_longk_kernels.py).
. lab/device_runs/prelude.sh /tmp/rtc_s7
U=unaligned_rows=1
( timeout 400 python3 -m lab.experiments.tiny_longk_kernels \
    255x257x65537:tall-128x64+$U,tall-128x64+$U+bk=16,wide-64x128+$U+bk=16 \
    1023x1025x1023:wide-64x128+$U,wide-64x128+$U+bk=16 1009x1013x1019:wide-64x128+$U,wide-64x128+$U+bk=16 \
    2049x2047x1025:wide-64x128+$U,wide-64x128+$U+bk=16 513x129x16383:sq-32x32+$U,sq-32x32+$U+bk=32 \
    4096x128x4096:wide-64x128,wide-64x128+bk=16 512x1024x4096:wide-64x128,wide-64x128+bk=16 \
    1500x3072x128:wide-64x128,wide-64x128+bk=16 64x4096x16384:wide-64x128,wide-64x128+bk=16 \
    128x2048x2048:sq-64x64,wide-64x128+bk=16 64x4096x4096:sq-64x64,wide-64x128+bk=16 ) > $OUT/bk.log 2>&1
echo "bk: rc $?"; grep -v Warn $OUT/bk.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-150
