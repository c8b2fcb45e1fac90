#!/bin/bash
# Session 7, issue 20: two cheap levers on the shapes below 1.0x, timed interleaved with cuBLAS
# (lab/experiments/tiny_longk_kernels.py: the member as the library builds it, then with one change):
#  - the SASS register-bank pass on the members without it (4x4 / 4x8 / 8x8 tiles: ptxas leaves
#    10-22% of their main-loop FFMAs bank-conflicted, the pass 7-16%);
#  - the 128x256 8x16 member with the edge vector path on the ragged aligned shapes (at 2000^3 its
#    edge tiles' per-float copies cost 33%: 435.9 us against 326.3 at 2048x2048x2000).
. lab/device_runs/prelude.sh /tmp/rtc_s7
U=unaligned_rows=1
S=sass_pass=1
( timeout 500 python3 -m lab.experiments.tiny_longk_kernels \
    2000x2000x2000:tall-256x128,wide-128x256+edge_vector_path=1 \
    7000x1760x1760:tall-256x128,wide-128x256+edge_vector_path=1,wide-128x256-noedge \
    513x129x16383:sq-32x32+$U,sq-32x32+$U+$S 127x511x257:wide-32x64+$U,wide-32x64+$U+$S \
    48x2048x8192:skinny-m48,skinny-m48+$S 64x4096x4096:sq-64x64,sq-64x64+$S 128x2048x2048:sq-64x64,sq-64x64+$S \
    1023x1025x1023:wide-64x128+$U,wide-64x128+$U+$S 1500x3072x128:wide-64x128,wide-64x128+$S \
    4096x128x4096:wide-64x128,wide-64x128+$S 512x1024x4096:wide-64x128,wide-64x128+$S \
    255x257x65537:tall-128x64+$U,tall-128x64+$U+$S 8192x128x8192:tall-256x128,tall-256x128+$S ) > $OUT/try.log 2>&1
echo "try: rc $?"; grep -v Warn $OUT/try.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-150
