#!/bin/bash
# Session 8 (issue 20): can the k16 members keep the edge clamp with the SASS register-bank pass?  With the
# clamp ptxas put 713 of their ranges kernel's 1024 main-loop FFMAs on conflicting banks (113 without); the
# pass brings that to 151 (regtile inspect).  Each as committed (no clamp, no pass) against clamp + pass, on
# aligned shapes (where the clamp alone lost 3-5%) and on ragged ones (where it gained 4%), with cuBLAS.
. lab/device_runs/prelude.sh /tmp/rtc_s8k
C=edge_clamp=1+sass_pass=1
( timeout 200 python3 -m lab.experiments.tiny_longk_kernels \
    8192x128x8192:wide-64x128-k16,wide-64x128-k16+$C 512x4096x4096:wide-64x128-k16,wide-64x128-k16+$C \
    1024x2048x1024:wide-64x128-k16,wide-64x128-k16+$C 1024x1024x1024:tall-128x64-k16,tall-128x64-k16+$C \
    700x5124x2048:wide-64x128-k16,wide-64x128-k16+$C 1500x4224x176:wide-64x128-k16,wide-64x128-k16+$C \
    2000x2000x2000:wide-64x128-k16,wide-64x128-k16+$C 7000x1760x1760:tall-128x64-k16,tall-128x64-k16+$C ) > $OUT/k16pass.log 2>&1
echo "k16 clamp+pass: rc $?"; grep -v Warn $OUT/k16pass.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-150
