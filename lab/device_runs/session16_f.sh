#!/bin/bash
# Session 16: with the BK 32 members, every candidate member timed on the four held-out sets (never fitted: for
# judging the refit offline, lab/experiments/grid_refit_eval.py), and the family's GPU tests of the new members.
# One archive ($OUT/session16_f.tgz).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s16
C=${REGTILE_COMMIT:-unknown}
python3 -c "import json; json.dump(json.load(open('benchmarks/shapes-heldout.json')) + json.load(open('benchmarks/shapes-heldout-2.json')), open('/tmp/h12.json', 'w'))"
candidates /tmp/h12.json $OUT/shape-candidates-session16-heldout12_$C.json ${H_S:-130} candidates_h12.log
candidates benchmarks/shapes-heldout-3.json $OUT/shape-candidates-session16-heldout3_$C.json ${H_S:-130} candidates_h3.log
candidates benchmarks/shapes-heldout-4.json $OUT/shape-candidates-session16-heldout4_$C.json ${H_S:-130} candidates_h4.log
( time timeout 150 python3 -m pytest -q -p no:cacheprovider -n 8 tests/gpu/test_family_gpu.py -k "k32" ) > $OUT/pytest_k32.log 2>&1
echo "k32 family tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_k32.log | tail -5
archive session16_f
