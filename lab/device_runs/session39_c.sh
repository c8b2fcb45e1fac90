#!/bin/bash
# Session 39 (issue 20): the PTX trigger kernels' launch_dependents after their griddepcontrol.wait ("after",
# emit_ptx.PDL_TRIGGER_AFTER_WAIT) against the library's (the one-pass kernel's before its wait, the ranges kernel's at
# exit) and against the other place ("late" / "early"), on every one-pass PTX plan of the suite and the held-out sets
# (four layouts), session38_e's 43 TN ring plans and 15 NN stream-K ranges plans: back to back as the sweep times
# (shape_sweep's batches on the default stream), then as CUDA graphs of 20 calls (graph=1).  session39_b: in graphs
# the one-pass kernel's trigger before its wait ran NN 384^3 10.2 us, without PDL 8.8; a reading: a call's blocks,
# scheduled early, trigger the call after them before they run, and calls pile up in the block slots.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s39
S="${SHAPES:-NN:256x256x256 NN:384x384x384 NN:3x5x7 TN:256x256x256 TN:384x384x384 TN:3x5x7 NT:256x256x256 NT:384x384x384 NT:3x5x7 TT:256x256x256 TT:384x384x384 TT:3x5x7 NN:784x192x32 NN:49x960x160 NN:49x1280x320 NN:2048x512x13 TN:784x192x32 TN:49x1280x320 TN:2048x512x13 NT:784x192x32 NT:49x960x160 NT:49x1280x320 NT:2048x512x13 TT:784x192x32 TT:49x1280x320 TT:2048x512x13 TN:512x512x512 TN:127x511x257 TN:197x768x768 TN:18944x20x3584 TN:10240x28x2560 TN:77x3072x768 TN:16384x30x4096 TN:32x3072x3072 TN:3136x96x384 TN:13824x24x5120 TN:1500x384x384 TN:257x1280x1280 TN:2048x256x512 TN:333x777x999 TN:640x360x1200 TN:96x512x384 TN:192x256x384 TN:768x64x384 TN:3072x64x512 TN:384x768x384 TN:768x384x384 TN:96x2048x768 TN:192x1024x768 TN:192x2048x384 TN:384x512x768 TN:768x256x768 TN:768x512x384 TN:1536x128x768 TN:1536x256x384 TN:3072x64x768 TN:3072x128x384 TN:2048x192x384 TN:4096x96x384 TN:768x512x512 TN:1536x256x512 TN:3072x64x1024 TN:3072x128x512 TN:384x384x1536 TN:384x768x768 TN:768x768x384 TN:1536x192x768 TN:6144x96x384 TN:96x2048x1536 NN:512x512x512 NN:50x50x50000 NN:32x11008x4096 NN:1009x1013x1019 NN:1023x1025x1023 NN:768x768x768 NN:1000x1000x1000 NN:127x511x257 NN:999x999x999 NN:333x777x999 NN:640x360x1200 NN:100x100x100000 NN:63x63x250000 NN:3136x96x384 NN:1500x384x384}"
lab_ab_both streamk_iters_ab ${L_S:-200} pdl=1 iters= after=1 $S
archive session39_c
