#!/bin/bash
# Session 10, second run (issue 20): held_registers again, the held kernels' stream-K work list also at two
# blocks an SM (slots=2) on the shapes that fuse the last column, then the k16 shapes below 1.02x held.
. lab/device_runs/prelude.sh /tmp/rtc_s10
( time timeout 200 python3 -m lab.experiments.held_registers slots=2 255x257x65537 4096x257x4096 1023x1025x1023 1000x1025x1000 ) > $OUT/held_slots.log 2>&1
echo "held slots=2: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/held_slots.log | cut -c1-500
mv $OUT/held_registers.json $OUT/held_slots.json
( time timeout 200 python3 -m lab.experiments.held_registers 8192x128x8192 64x4096x4096 1009x1013x1019 512x1024x4096 2048x1024x4096 64x4096x16384 ) > $OUT/held_k16.log 2>&1
echo "held k16: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/held_k16.log | cut -c1-500
