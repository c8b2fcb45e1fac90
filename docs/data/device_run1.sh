# Device run 1 of 2026-11-22 (evening session): GPU tests at this commit, and a source-level
# Nsight Compute profile (per-SASS-instruction warp-state samples) of the best kernel
# (PTX 128x256x8 8x16 + SASS pass) at 4096^3.  Results land under $OUT.
set -u
export PYTHONUNBUFFERED=1
python3 -m pip install --no-deps --no-build-isolation -q -e . >/dev/null 2>&1 || { echo "install failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
( time timeout 400 python3 -m pytest -m gpu tests/gpu -q -p no:cacheprovider -n 8 ) > $OUT/pytest_gpu.log 2>&1
echo "pytest rc=$?"; tail -4 $OUT/pytest_gpu.log
for sp in 1 0; do
  timeout 150 ncu --clock-control none --set full --import-source no -k regex:regtile -c 1 -s 1 -f -o $OUT/p128x256_pass$sp \
      python3 docs/data/ncu_sass_pass_launch.py p128x256 $sp 4096 > $OUT/ncu_$sp.log 2>&1 || echo "ncu failed $sp"
  ncu -i $OUT/p128x256_pass$sp.ncu-rep --page source --csv --print-source sass > $OUT/src_pass$sp.csv 2>$OUT/src_err$sp.log || \
      ncu -i $OUT/p128x256_pass$sp.ncu-rep --page source --csv > $OUT/src_pass$sp.csv 2>>$OUT/src_err$sp.log
  ls -la $OUT; head -c 600 $OUT/src_pass$sp.csv; tail -3 $OUT/src_err$sp.log
done
