#!/bin/bash
# Session 41: the suite in NT again (c_d56f3e8 had 512^3 at 0.991 with bimodal rounds, 15.1-15.9 us, where the
# same kernel as a member ran 11.8 us in d_bb5cfed) and the 195 held-out shapes in TT (last run in session 33).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s41e
layout_sweep NT ${SWEEP_S:-75}
heldout_layout TT ${HL_S:-75}
archive session41_e
