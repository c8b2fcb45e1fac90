#!/bin/bash
# Issue 20's second device run, in one command (run from the repository root on the GPU machine):
# every candidate member per suite shape, the decision table refitted from it, the library's
# choice per shape against cuBLAS (docs/data/shape-sweep.json), then the family's GPU tests.
# Results under $OUT.
set -u
export PYTHONUNBUFFERED=1 REGTILE_CACHE_DIR=${REGTILE_CACHE_DIR:-/tmp/rtc_shapes}
OUT=${OUT:-.}
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git_rev=$(cat .carry_rev 2>/dev/null || echo unknown)
echo "commit $git_rev $(date -u +%FT%TZ)"
timeout 200 python3 -m regtile.tools.shape_sweep --candidates --json $OUT/candidates2.json --budget-s 150 \
  > $OUT/progress2.log 2>&1
echo "candidates: rc $? $(grep -c '^\[' $OUT/progress2.log) shapes"; tail -2 $OUT/progress2.log
if [ -s $OUT/candidates2.json ]; then
  python3 -m regtile.tools.shape_sweep --fit docs/data/shape-candidates-run1.json $OUT/candidates2.json
fi
cp codegen/heuristic_table.json $OUT/heuristic_table.json
timeout 150 python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
  --budget-s 110 > $OUT/final.log 2>&1
echo "final: rc $?"; grep -c '^\[' $OUT/final.log
timeout 100 python3 -m pytest -q -n 8 -p no:cacheprovider tests/gpu/test_family_gpu.py > $OUT/pytest_family.log 2>&1
echo "pytest: rc $?"; tail -4 $OUT/pytest_family.log
head -12 $OUT/shapes_table.md
