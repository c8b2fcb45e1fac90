#!/bin/bash
# Session 9, second run (issue 20): the whole GPU suite at the session's code; then the two unaligned-rows
# paths A/B on the ragged shapes below or near cuBLAS (config.unaligned_rows: a float a thread, consecutive
# threads on consecutive floats; config.unaligned_vectors: each vector's four floats, unchecked; for_rows
# gives the first to tiles of <= 64 accumulators), every variant checked against float64 first.
. lab/device_runs/prelude.sh /tmp/rtc_s9b
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s9b
gpu_suite 230
( time timeout 150 python3 -m lab.experiments.tiny_longk_kernels \
    255x257x65537:tall-128x64-k16+unaligned_rows=1,tall-128x64-k16+unaligned_vectors=1,tall-256x64+unaligned_vectors=1 \
    1023x1025x1023:wide-64x128-k16+unaligned_rows=1,wide-64x128-k16+unaligned_vectors=1 \
    1009x1013x1019:wide-64x128-k16+unaligned_rows=1,wide-64x128-k16+unaligned_vectors=1 \
    513x129x16383:sq-32x32+unaligned_rows=1,sq-32x32+unaligned_vectors=1 \
    127x511x257:wide-32x64+unaligned_rows=1,wide-32x64+unaligned_vectors=1 ) > $OUT/unaligned_ab.log 2>&1
echo "unaligned A/B: rc $?"; grep -E "sgemm|Error" $OUT/unaligned_ab.log | cut -c1-170
