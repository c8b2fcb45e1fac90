#!/bin/bash
# Session 34: the lab's shared helpers (layout_spec, time_members) after the refactor: layout_candidates and fused_n16
# on one shape each.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34l
lab_ab layout_candidates ${L_S:-60} fused=1 members=fused-128x16,skinny-n16-k32 NT:4096x16x4096 TN:4096x16x4096
lab_ab fused_n16 ${L_S:-60} tiles=f128x16k32 splits=8 4096x16x4096
archive session34_l
