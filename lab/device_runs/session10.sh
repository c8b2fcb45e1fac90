#!/bin/bash
# Session 10, first run (issue 20): the k16 members held at .maxnreg 168 (lab/experiments/held_registers.py),
# with and without the fused last column, on the shapes that fuse it or could and on k16 shapes below 1.02x.
. lab/device_runs/prelude.sh /tmp/rtc_s10
( time timeout 330 python3 -m lab.experiments.held_registers ) > $OUT/held_registers.log 2>&1
echo "held: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/held_registers.log | cut -c1-400
