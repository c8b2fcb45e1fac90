#!/bin/bash
# Session 12 (issue 20): both_float4 changed every PTX kernel's text, so the table's timings are older than the
# kernels: the candidates of the whole suite and the sticky refit (0.03) over the table's sources with this
# run last, then the sweep with the refit table (in the device's copy of the tree).
. lab/device_runs/prelude.sh /tmp/rtc_s12
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session12_${REGTILE_COMMIT:-unknown}.json 150 0.03
sweep ${SWEEP_S:-200}
