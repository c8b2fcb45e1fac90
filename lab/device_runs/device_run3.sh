# Device run 3 of 2026-11-22 (evening session): GPU tests, then compute-sanitizer memcheck and
# racecheck over every preset, both backends, with and without the SASS pass, split-K and the
# untuned regtile.sgemm/sgemv defaults, at small and 16-byte-aligned edge sizes (--sizes all).
# Logs: $OUT/pytest_gpu.log and $OUT/sanitizer_logs.tar.gz (one log per tool and variant).
set -u
export PYTHONUNBUFFERED=1
python3 -m pip install --no-deps --no-build-isolation -q -e . >/dev/null 2>&1 || { echo "install failed"; exit 1; }
( time timeout 240 python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 8 ) > $OUT/pytest_gpu.log 2>&1
echo "pytest rc=$?"; tail -3 $OUT/pytest_gpu.log; grep -E "^FAILED" $OUT/pytest_gpu.log | head
# warm the compile cache once, serially, so the sanitizer runs below only launch
export REGTILE_CACHE_DIR=/tmp/rtcache
mkdir -p /tmp/san
variants=("cuda:--backend cuda" "ptx:--backend ptx" "cuda_pass:--backend cuda --sass-pass" "ptx_pass:--backend ptx --sass-pass" "splitk2:--split-k 2" "splitk3:--split-k 3 --presets zorder,vec4,tile1d,naive" "auto:--auto --presets zorder")
for v in "${variants[@]}"; do
  name=${v%%:*}; args=${v#*:}
  for tool in memcheck racecheck; do
    ( timeout 420 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m regtile.tools.sanitize $args --sizes all \
        > /tmp/san/${tool}_${name}.log 2>&1; echo "exit $?" >> /tmp/san/${tool}_${name}.log ) &
  done
done
wait
for f in /tmp/san/*.log; do printf '%-28s %s | %s | %s\n' "$(basename $f)" "$(grep -E 'launches, ' $f | tail -1)" "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1)" "$(tail -1 $f)"; done
tar czf $OUT/sanitizer_logs.tar.gz -C /tmp san
