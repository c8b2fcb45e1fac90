#!/bin/bash
# Session 41's closing check: the whole GPU suite at the commit (the SASS stage now rewrites a stream-K module's two
# kernels side by side, the same cubins: runtime/sass_stage._run), the suite in NT and TT with session 40's table rows
# (last swept at c3b7fda, before them) and the 195 held-out shapes in NN (last run in session 38, before sessions
# 39-40's launch changes).  The steps' limits add up to 570 s of the 600 a call may run.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s41
gpu_suite ${G_S:-345}
layout_sweep NT ${SWEEP_S:-75}
layout_sweep TT ${SWEEP_S:-75}
heldout_layout NN ${HL_S:-75}
archive session41_c
