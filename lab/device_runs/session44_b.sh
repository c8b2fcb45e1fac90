#!/bin/bash
# Session 44: split-K as a batch of the one-pass kernel (lab/experiments/batch_split_ab.py) on the shapes whose tiles
# are fewer than the SMs and that stay below cuBLAS (8192x128x8192 NN / TT, 4096x128x4096); and the repacking rules
# (one operand, or both) on the held-out shapes below cuBLAS with unaligned rows under the bound of 700.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
lab_ab batch_split_ab ${B_S:-240}
lab_ab repack_rule_ab ${R_S:-180} rules=AB,A,B NT:8191x511x2047 NT:5555x555x5555 TT:129x4097x513 NT:129x4097x513 \
    TT:257x1280x1280 TT:3001x3001x64 NT:333x777x999 TT:333x777x999 TT:49x1280x320
archive session44_b
