#!/bin/bash
# Session 33 (issue 20): the row-major fused picks other than skinny-n ones (fused-32x32, fused-32x32-k8, fused-32x64)
# have no stand-in in NT and TN (heuristic.fuses: no fused member there), so those layouts run the table's unfused
# choice: held-out 196x1152x384 at 0.47x cuBLAS on plain-32x32 (session 32).  Every unfused member on the 23 shapes
# of the suite, held-out sets and grids whose row-major pick is one of them, in NT and TN (and 196x1152x384 /
# 192x1152x384 in NN beside them).  Then session 32's recipe i (NT wide-64x128-k16 beside C's last column).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s33a
lab_ab layout_candidates ${L_S:-330} budget=${B_S:-300} \
    NN:196x1152x384 NN:192x1152x384 NT:2048x24x384 TN:2048x24x384 NT:3072x24x384 TN:3072x24x384 NT:3072x32x384 TN:3072x32x384 NT:4096x24x384 TN:4096x24x384 NT:2048x48x384 TN:2048x48x384 NT:4096x32x384 TN:4096x32x384 NT:6144x24x384 TN:6144x24x384 NT:1536x96x384 TN:1536x96x384 NT:96x1536x384 TN:96x1536x384 NT:8192x24x384 TN:8192x24x384 NT:3072x64x384 TN:3072x64x384 NT:6144x32x384 TN:6144x32x384 NT:1536x128x384 TN:1536x128x384 NT:4096x48x384 TN:4096x48x384 NT:2048x96x384 TN:2048x96x384 NT:192x1024x384 TN:192x1024x384 NT:768x256x384 TN:768x256x384 NT:96x2048x384 TN:96x2048x384 NT:196x1152x384 TN:196x1152x384 NT:768x256x512 TN:768x256x512 NT:8192x32x384 TN:8192x32x384 NT:3136x64x576 TN:3136x64x576 NT:64x128x16384 TN:64x128x16384
mv $OUT/layout_candidates.json $OUT/layout_candidates_fused.json; mv $OUT/layout_candidates.log $OUT/layout_candidates_fused.log
lab_ab layout_candidates ${L2_S:-100} budget=${B2_S:-80} members=wide-64x128-k16 \
    "vary=vec:unaligned_rows=False;unaligned_vectors=True" \
    NT:255x257x65537 NT:1023x1025x1023 NT:2047x769x2047 NT:777x897x777 NT:383x1025x3071 NT:1535x513x1535 \
    NT:129x1153x4097 NT:3071x257x1023
archive session33_a
