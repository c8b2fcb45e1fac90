#!/bin/bash
# Issue 20's third round, device run 2, in one command (from the repository root on the GPU
# machine; results under $OUT): every candidate member per suite shape with the edge vector path
# and the small split-K members, the decision table refitted (round 1's run 2, then round 3's run 1
# with its "-ev" timings under the member names, then this run: later shapes replace earlier ones),
# the library's choice per shape against cuBLAS, then the family's GPU tests.
set -u
export PYTHONUNBUFFERED=1 REGTILE_CACHE_DIR=${REGTILE_CACHE_DIR:-/tmp/rtc_shapes3}
OUT=${OUT:-.}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "start $(date -u +%FT%TZ)"
timeout 125 python3 -m regtile.tools.shape_sweep --candidates --json $OUT/cand_full.json --budget-s 95 \
  > $OUT/cand_full.log 2>&1
echo "candidates: rc $? $(grep -c '^\[' $OUT/cand_full.log) shapes"; tail -1 $OUT/cand_full.log
runs="docs/data/shape-candidates-run2.json docs/data/shape-candidates-round3-run1-ev.json"
[ -s $OUT/cand_full.json ] && runs="$runs $OUT/cand_full.json"
python3 -m regtile.tools.shape_sweep --fit $runs
cp codegen/heuristic_table.json $OUT/heuristic_table.json
timeout 70 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
  --budget-s 50 > $OUT/final.log 2>&1
echo "library: rc $? $(grep -c '^\[' $OUT/final.log) shapes"
timeout 65 python3 -m pytest -q -x -n 8 -p no:cacheprovider tests/gpu/test_family_gpu.py > $OUT/pytest_family.log 2>&1
echo "pytest: rc $?"; tail -3 $OUT/pytest_family.log
grep -A8 "^| group" $OUT/shapes_table.md | head -9; grep -i "geomean\|geometric" $OUT/shapes_table.md | head -3
