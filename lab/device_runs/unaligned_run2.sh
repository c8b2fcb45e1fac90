#!/bin/bash
# Issue 20, unaligned rows, device run 2 (from the repository root on the GPU machine; results under
# $OUT): the heuristic's member of each unaligned target as committed against the same member with
# config.unaligned_rows (the float copies) and cuBLAS, interleaved (lab/experiments/unaligned_rows.py);
# the GPU tests of the path; Nsight Compute of the three kernels on 255x257x65537; compute-sanitizer
# memcheck on unaligned shapes; then the GPU tests of regtile.sgemm's choice (GemmPlan now asks for
# the path).  (Run 1 ran unaligned_run1.sh at 580a37e, the first form: its timing and ncu steps
# failed on the experiment's arguments; its tests passed 95 of 96 and memcheck was clean.)
. lab/device_runs/prelude.sh /tmp/rtcu
export REGTILE_TEST_CACHE_DIR=/tmp/rtcu
( time timeout 90 python3 -m lab.experiments.unaligned_rows --json $OUT/unaligned_rows_run.json --rounds 5 ) \
    > $OUT/timing.log 2>&1
echo "timing: rc $?"
( time timeout 55 python3 -m pytest -q -p no:cacheprovider -n 16 tests/gpu/test_unaligned_gpu.py ) \
    > $OUT/pytest_unaligned.log 2>&1
echo "tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_unaligned.log | head -12
( time timeout 35 ncu --set detailed -k regex:'regtile|f32f32' -c 8 --csv --page details \
    python3 -m lab.experiments.unaligned_rows --ncu 255x257x65537 --json /tmp/ncu.json ) \
    > $OUT/ncu_255x257x65537.csv 2> $OUT/ncu.err
echo "ncu: rc $?"; grep -E "ncu launches|==ERROR|==WARNING" $OUT/ncu_255x257x65537.csv $OUT/ncu.err | head -5
( time timeout 25 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import sys; sys.path[:0] = ['tests/gpu', 'tests']
from regtile.codegen.presets import FAMILY
from gpu_helpers import check_config
for name, shape in [('tall-128x64', (129, 67, 512)), ('tall-128x64', (255, 257, 1031)), ('sq-32x32', (5, 7, 64)),
                    ('wide-64x128', (127, 1, 1025)), ('wide-128x256', (1000, 1001, 515))]:
    check_config(FAMILY[name].config.replace(unaligned_rows=True), *shape, backend='ptx', what=name)
    print('memcheck ran', name, shape, flush=True)
" ) > $OUT/memcheck.log 2>&1
echo "memcheck: rc $?"; grep -E "ran|ERROR SUMMARY|Invalid" $OUT/memcheck.log | head -8
( time timeout 25 python3 -m pytest -q -p no:cacheprovider -n 16 \
    tests/gpu/test_family_gpu.py::test_sgemm_with_the_heuristics_choice tests/gpu/test_api_gpu.py ) > $OUT/pytest_touched.log 2>&1
echo "touched tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_touched.log | head -8
grep -E "us \(" $OUT/timing.log
