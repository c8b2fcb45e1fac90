#!/bin/bash
# Session 14: repacking the unaligned rows again (lab/experiments/repack_ab.py, three paddings of the leading
# dimensions) on the suite's unaligned shapes, against the plans as committed and cuBLAS.
. lab/device_runs/prelude.sh /tmp/rtc_s14
( time timeout ${AB_S:-300} python3 -m lab.experiments.repack_ab pads=${PADS:-c4,c4+4,c32} ${SHAPES:-8191x8193x1025 4099x4093x4091 6143x2047x3071 4097x4097x4097 2049x2047x1025 1023x1025x1023} ) > $OUT/repack_ab.log 2>&1
echo "repack_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/repack_ab.log | cut -c1-900
