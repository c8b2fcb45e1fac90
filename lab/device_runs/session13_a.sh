#!/bin/bash
# Ran at 39eb686 and 93f98fb. The ring (FewVecTConfig.ring_stages) and its lab files were removed after 14df2b0 (slower than
# the plans as committed: docs/shapes.md); check out 14df2b0 to rerun.
# Session 13 (issue 20): the few-vector op-T kernel through a shared-memory ring (FewVecTConfig.ring_stages) on
# the skinny-m shapes (m = 8..32) against regtile.sgemm as committed and cuBLAS (lab/experiments/fewvec_ring.py).
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${RING_S:-240} python3 -m lab.experiments.fewvec_ring $OUT/fewvec_ring.json ${SHAPES:+--shapes "$SHAPES"} ) \
    > $OUT/fewvec_ring.log 2>&1
echo "fewvec_ring: rc $?"; grep -E "^[0-9]+x|Error|error|real|compiled" $OUT/fewvec_ring.log | cut -c1-600
