#!/bin/bash
# Session 26 (issue 20): on the H200, the FFMA peak (lab/regbank_calib's chains: ptxas's own and the
# conflict-free one), held-out 2 and 5 through regtile.sgemm as committed, then the whole GPU suite.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s26
( timeout 90 python3 -m regtile.lab.regbank_calib --out /tmp/calib --time --variants original none_rz --json ) \
    > $OUT/calib.log 2>&1; echo "calib: rc $?"; grep -v "^ *[{}\"]" $OUT/calib.log | head -30
heldout_sweeps ${H_S:-70} 2 5
gpu_suite ${GPU_S:-330}
archive session26_b
