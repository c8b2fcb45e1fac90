#!/bin/bash
# Session 10, fourth run (issue 20): the fix-up's add loop as add_slots (FIXUP_SLOTS_AT_ONCE) - the stream-K
# GPU tests; fixup_ab with the held kernels and two slots a step; held_registers on the fused-column shapes.
. lab/device_runs/prelude.sh /tmp/rtc_s10
( time timeout 120 python3 -m pytest -m gpu tests/gpu/test_streamk_gpu.py -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_streamk.log 2>&1
echo "streamk tests: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_streamk.log | head; grep -E "passed|failed" $OUT/pytest_streamk.log | tail -1
( time timeout 300 python3 -m lab.experiments.fixup_ab held=1 ) > $OUT/fixup_ab.log 2>&1
echo "fixup_ab: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/fixup_ab.log | cut -c1-600
( time timeout 150 python3 -m lab.experiments.held_registers 1023x1025x1023 1000x1025x1000 4096x257x4096 513x129x16383 ) > $OUT/held_registers.log 2>&1
echo "held: rc $?"; grep -E "^[0-9]+x|Error|error" $OUT/held_registers.log | cut -c1-500
