#!/bin/bash
# Issue 20, unaligned rows, device run 1 (from the repository root on the GPU machine; results under
# $OUT): the heuristic's member of each unaligned target against the same member with
# config.unaligned_rows and cuBLAS (lab/experiments/unaligned_rows.py), the GPU tests of the path,
# Nsight Compute of the three kernels on 255x257x65537, and compute-sanitizer memcheck on unaligned
# shapes.  Ran once, at 580a37e (the first form of the path, clamped vector copies, replaced since):
# the timing and ncu steps stopped on the experiment's arguments (fixed since); 95 of 96 tests passed
# (the choice test assumed a PTX member for a shape the heuristic gives a fused one); memcheck clean.
. lab/device_runs/prelude.sh /tmp/rtcu
export REGTILE_TEST_CACHE_DIR=/tmp/rtcu
( time timeout 100 python3 -m lab.experiments.unaligned_rows --json $OUT/unaligned_rows_run.json --rounds 5 ) \
    > $OUT/timing.log 2>&1
echo "timing: rc $?"
( time timeout 60 python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_unaligned_gpu.py ) \
    > $OUT/pytest_unaligned.log 2>&1
echo "tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_unaligned.log | head -12
( time timeout 45 ncu --set detailed -k regex:'regtile|f32f32' -c 12 --csv --page details \
    python3 -m lab.experiments.unaligned_rows --ncu 255x257x65537 --json /tmp/ncu.json ) \
    > $OUT/ncu_255x257x65537.csv 2> $OUT/ncu.err
echo "ncu: rc $?"; tail -3 $OUT/ncu.err
( time timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import sys; sys.path[:0] = ['tests/gpu', 'tests']
from regtile.codegen.presets import FAMILY
from gpu_helpers import check_config
for name, shape in [('tall-128x64', (129, 67, 512)), ('tall-128x64', (255, 257, 1031)), ('sq-32x32', (5, 7, 64)),
                    ('wide-64x128', (127, 1, 1025))]:
    check_config(FAMILY[name].config.replace(unaligned_rows=True), *shape, backend='ptx', what=name)
    print('memcheck ran', name, shape, flush=True)
" ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ran|ERROR SUMMARY|Invalid" $OUT/memcheck.log | head -8
grep -E "us \(" $OUT/timing.log
