#!/bin/bash
# Session 14: config variants of the plans on the skinny misses (lab/experiments/variants_ab.py, its DEFAULT):
# the few-vector op N knobs on the 12- and 16-vector shapes, a register cap on the skinny members.
. lab/device_runs/prelude.sh /tmp/rtc_s14
( time timeout ${AB_S:-400} python3 -m lab.experiments.variants_ab ${SHAPES:-} ) > $OUT/variants_ab.log 2>&1
echo "variants_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/variants_ab.log | cut -c1-900
