# Device run 5 of 2026-11-22 (evening session): sanitizers on the untuned sm_90 SGEMM default
# (PTX 128x256 8x16 + SASS pass), then the performance issue's sweep (best kernel per shape,
# cuBLAS in the same run), the interleaved best-vs-cuBLAS check, and the pass's table.
set -u
export PYTHONUNBUFFERED=1 REGTILE_CACHE_DIR=/tmp/rtcache
python3 -m pip install --no-deps --no-build-isolation -q -e . >/dev/null 2>&1 || { echo "install failed"; exit 1; }
for tool in memcheck racecheck; do
  ( timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m regtile.tools.sanitize --auto --backend ptx \
      --presets zorder --sizes all > $OUT/${tool}_auto_ptx.log 2>&1; echo "exit $?" >> $OUT/${tool}_auto_ptx.log ) &
done
wait
for tool in memcheck racecheck; do echo "$tool: $(grep 'launches, ' $OUT/${tool}_auto_ptx.log) | $(grep -E 'SUMMARY' $OUT/${tool}_auto_ptx.log) | $(tail -1 $OUT/${tool}_auto_ptx.log)"; done
timeout 330 python3 -m regtile.tools.sweep --shapes --json $OUT/sweep.json --out $OUT/sweep.md > $OUT/sweep.log 2>&1; echo "sweep rc=$?"
tail -20 $OUT/sweep.md
timeout 100 python3 -m lab.experiments.interleave_best_vs_cublas > $OUT/interleave.log 2>&1; echo "interleave rc=$?"
grep -A3 median $OUT/interleave.json | head -20
