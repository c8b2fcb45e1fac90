#!/bin/bash
# Session 14: the SASS register-bank pass on the PTX members that run without it (skinny-m16-k32, skinny-m32,
# skinny-m32-256, skinny-m48, wide-64x256, wide-64x128, wide-32x64, sq-64x64; `regtile inspect` puts 6-22% of
# their main loops' FFMAs in register-bank conflicts, half that with the pass), lab/experiments/variants_ab.py.
. lab/device_runs/prelude.sh /tmp/rtc_s14
( time timeout ${AB_S:-300} python3 -m lab.experiments.variants_ab "sp:sass_pass=True" ${SHAPES:-32x1024x131072 \
    32x4096x4096 17x8191x4099 16x4096x4096 16x5120x5120 16x16384x4096 16x4096x16384 48x2048x8192 700x5124x2048 \
    2049x2047x1025 127x511x257 1000x1000x1000 128x2048x2048 513x129x16383} ) > $OUT/variants_ab.log 2>&1
echo "variants_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/variants_ab.log | cut -c1-400
