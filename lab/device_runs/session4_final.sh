#!/bin/bash
# The integration run on the H100 of 2026-11-25's fourth session, two calls from the repository
# root on the GPU machine (REGTILE_COMMIT names the code: .git does not travel).  PART=1:
#   1. the whole GPU suite;
#   2. every candidate member of the suite shapes whose rows are not 16-byte aligned (K or N % 4
#      != 0; N > 16 and M > 16: the others take the GEMV and few-vector routes), built as
#      GemmPlan runs them (heuristic.for_rows: the unaligned rows' copies), then the table refit
#      over every earlier run with this one last (its shapes replace theirs);
# Results under $OUT; the refit table comes back as $OUT/heuristic_table.json: commit it, then
# PART=2 (the tree travels again):
#   3. what regtile.sgemm launches for every suite shape against cuBLAS, with that table;
#   4. the per-call host cost of regtile.sgemm / sgemv against torch (benchmarks/overhead.py);
#   5. `regtile run --member` of a split-K member, twice (its split for the shape; cuBLAS's time).
. lab/device_runs/prelude.sh /tmp/rtc_s4
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s4
if [ "${PART:-1}" = 1 ]; then
( time timeout ${SUITE_S:-300} python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 12 ) > $OUT/pytest_gpu.log 2>&1
echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -20; tail -3 $OUT/pytest_gpu.log
python3 - <<'PY'
import json
suite = json.load(open("benchmarks/shapes.json"))
suite = suite if isinstance(suite, list) else suite["shapes"]
keep = [s for s in suite if (s["k"] % 4 or s["n"] % 4) and s["n"] > 16 and s["m"] > 16]
json.dump(keep, open("/tmp/unaligned.json", "w"))
print(f"unaligned suite: {len(keep)} shapes")
PY
RAW=$OUT/shape-candidates-session4-unaligned_${REGTILE_COMMIT:-unknown}.json
candidates_and_refit /tmp/unaligned.json $RAW ${CAND_S:-90}
else
timeout ${SWEEP_S:-240} python3 -m regtile.tools.shape_sweep --json $OUT/shape-sweep.json --md $OUT/shapes_table.md \
  --budget-s $(( ${SWEEP_S:-240} - 30 )) > $OUT/sweep.log 2>&1
echo "sweep: rc $? $(grep -c '^\[' $OUT/sweep.log) shapes"; tail -2 $OUT/sweep.log
head -14 $OUT/shapes_table.md
timeout 90 python3 benchmarks/overhead.py --json $OUT/overhead.json > $OUT/overhead.log 2>&1
echo "overhead: rc $?"; tail -14 $OUT/overhead.log
for i in 1 2; do timeout 40 regtile run --member splitk-32x32-f4 --m 700 --n 35 --k 2048 2>&1 | grep -E "split|time|cuBLAS|ratio"; done
fi
