#!/bin/bash
# Session 41: f_deb5f3f found TT 18944x20x3584's model pick tall-64x32-k32 at 129.4 us where skinny-n32-256 ran 102.6
# (cuBLAS 122.7).  Every member on the held-out sets' four tall skinny-n shapes whose pick is tall-64x32-k32 (n of
# 20-30, long K), in TN, NT and TT: is it one shape or the A^T / B^T forms of the pick?
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s41g
lab_ab layout_candidates ${L_S:-180} fused=1 budget=$(( ${L_S:-180} - 30 )) \
    TN:18944x20x3584 TN:10240x28x2560 TN:16384x30x4096 TN:13824x24x5120 \
    TT:10240x28x2560 TT:16384x30x4096 TT:13824x24x5120 \
    NT:18944x20x3584 NT:10240x28x2560 NT:16384x30x4096 NT:13824x24x5120
archive session41_g
