#!/bin/bash
# Prepared in session 7 for the next device session (not run yet).  From the repository root on the GPU
# machine, REGTILE_COMMIT naming the code.
#   1. the cp.async ring's GPU test (tests/gpu/test_family_gpu.py, written after session 7's last GPU call);
#   2. Nsight Compute on the ring as committed (prefetch across tiles) against the member it would replace,
#      at 4096^3 and 2048^3: is it the shared-memory waits, the MIO queue (4-byte copies of the transposed A,
#      ptxas's dummy LDS RZ before each LDGSTS run) or the barrier (docs/shapes.md, "The cp.async ring");
#   3. PDL on / off at 1009x1013x1019 and 1023x1025x1023, the two shapes it slows (not explained), beside
#      64x4096x4096 and 128x2048x2048, which it speeds up.
. lab/device_runs/prelude.sh /tmp/rtc_s8
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8
( timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider -n 12 tests/gpu/test_family_gpu.py -k cp_async_ring ) > $OUT/pytest_ring.log 2>&1
echo "ring GPU test: rc $?"; grep -E "FAILED|passed|failed" $OUT/pytest_ring.log | tail -3
M=$(python3 -c "from lab.experiments.ncu_below import METRICS; print(','.join(METRICS))")
timeout 200 ncu --clock-control none --metrics $M --csv -k regex:regtile python3 -m lab.experiments.tiny_longk_kernels --ncu-target \
    4096x4096x4096:wide-128x256-noedge+sass_pass=0,wide-128x256-noedge+stages=3+sass_pass=0 \
    2048x2048x2048:wide-64x128-k16,wide-64x128-k16+stages=3 > $OUT/ncu_ring2.csv 2> $OUT/ncu_ring2.err
echo "ncu ring: rc $?"
( timeout 120 python3 -m lab.experiments.pdl_ab gemm:1009x1013x1019,1023x1025x1023,64x4096x4096,128x2048x2048 ) > $OUT/pdl_ab.log 2>&1
echo "pdl_ab: rc $?"; tail -4 $OUT/pdl_ab.log
