#!/bin/bash
# Session 36 (issue 20): the float copies' line pointers from float 0's ("first") against each stepped from the line
# before ("chained", the form before), on the plans that run the float copies and on the big members' vector-float
# shapes with the float copies instead (lab/experiments/float_pointers_ab.py).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s36e
# lab/experiments/float_pointers_ab.py and the switch it patched (codegen/ptx_unaligned.FLOAT_POINTERS) were removed
# after this run: check out bb6de22 to run it again.
lab_ab float_pointers_ab ${L_S:-420} "$@"
archive session36_e
