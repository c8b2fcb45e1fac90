#!/bin/bash
# Session 8, fourth run (issue 20): the k16 members without the edge clamp again (their ranges kernel's bank
# conflicts, session8_check.sh), the table back at session 7's; then
#   1. the whole GPU suite;
#   2. the candidates of the whole suite and the sticky refit (shape_sweep --fit --sticky 0.03) over session 7's
#      sources with this run last (session8_refit.sh's run left out: its k16 members had the clamp);
#   3. the sweep with that table.
. lab/device_runs/prelude.sh /tmp/rtc_s8f
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8f
gpu_suite 200
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session8-final_${REGTILE_COMMIT:-unknown}.json 110 0.03
sweep 205
