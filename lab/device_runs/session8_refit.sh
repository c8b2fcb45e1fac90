#!/bin/bash
# Session 8, second run (issue 20): the unchecked vector floats on unaligned rows (config.py unaligned_vectors,
# given by heuristic.for_rows to the members without room for the float copies), then the refit with the
# edge clamp on every PTX member.
#   1. the unaligned rows' GPU tests (the new members' path, its layouts, bit-identical to the checked path),
#      the edge split's and the heuristic's choice;
#   2. the unchecked vector floats against the checked path (and the float copies where a member has them)
#      on the unaligned shapes below cuBLAS, interleaved with cuBLAS;
#   3. the candidates of the whole suite, the refit (-> $OUT/heuristic_table.json), the sweep with that table.
. lab/device_runs/prelude.sh /tmp/rtc_s8r
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8r
( timeout 100 python3 -m pytest -m gpu -q -p no:cacheprovider -n 12 tests/gpu/test_unaligned_gpu.py \
    tests/gpu/test_edges_gpu.py tests/gpu/test_family_gpu.py -k "unaligned or edge or heuristics" ) > $OUT/pytest_gpu_uv.log 2>&1
echo "unaligned / edge / choice GPU tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu_uv.log | head; tail -1 $OUT/pytest_gpu_uv.log
V=unaligned_vectors=1
( timeout 150 python3 -m lab.experiments.tiny_longk_kernels \
    8191x8193x1025:wide-128x256-noedge,wide-128x256-noedge+$V,tall-256x128+$V \
    4099x4093x4091:wide-128x256-noedge,wide-128x256-noedge+$V 6143x2047x3071:wide-128x256-noedge,wide-128x256-noedge+$V \
    1023x1025x1023:wide-64x128-k16+unaligned_rows=1,wide-128x256-noedge+$V,sq-128x128+$V \
    255x257x65537:tall-128x64-k16+unaligned_rows=1,sq-128x128+$V ) > $OUT/uv.log 2>&1
echo "unaligned vectors A/B: rc $?"; grep -v Warn $OUT/uv.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-150
candidates_and_refit benchmarks/shapes.json $OUT/shape-candidates-session8_${REGTILE_COMMIT:-unknown}.json 150
sweep 190
