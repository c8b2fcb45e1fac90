#!/bin/bash
# Session 7, issue 20, after the k16 members: deeper k-tiles still (BK 24 on the 8x8 tiles, BK 16 / 32
# on the 4x8 and 4x4 ones) on the shapes still below cuBLAS, against the member the table picks there,
# interleaved with cuBLAS (lab/experiments/tiny_longk_kernels.py).
. lab/device_runs/prelude.sh /tmp/rtc_s7
U=unaligned_rows=1
W=wide-64x128+bk=24
T=tall-128x64+bk=24
Q=sq-64x64+bk=24
( timeout 500 python3 -m lab.experiments.tiny_longk_kernels \
    64x4096x4096:wide-64x128-k16,$W,$Q,sq-64x64-4x8+bk=32 128x2048x2048:sq-64x64,$W,$Q,sq-64x64-4x8+bk=32 \
    2000x2000x2000:wide-64x128-k16,$W,$T 7000x1760x1760:tall-128x64-k16,$T,$W 8192x128x8192:wide-64x128-k16,$W,$T \
    64x1024x500000:wide-64x128-k16,$W 512x1024x4096:wide-64x128-k16,$W,$Q 768x512x768:splitk-64x128,$W,$Q,sq-64x64-4x8+bk=32 \
    1023x1025x1023:wide-64x128+$U,$W+$U,$Q+$U 1009x1013x1019:wide-64x128+$U,$W+$U,$Q+$U \
    127x511x257:wide-32x64+$U,wide-32x64+$U+bk=32,sq-64x64-4x8+$U+bk=16 513x129x16383:sq-32x32+$U,tall-64x32+$U+bk=32,sq-64x64-4x8+$U+bk=32 \
    255x257x65537:tall-128x64-k16+$U,$T+$U ) > $OUT/bk2.log 2>&1
echo "bk2: rc $?"; grep -v Warn $OUT/bk2.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-120
