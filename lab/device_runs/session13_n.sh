#!/bin/bash
# Session 13 (issue 20): the cp.async ring on the skinny and long-K shapes' PTX members (lab/experiments/ring_members_ab.py).
. lab/device_runs/prelude.sh /tmp/rtc_s13
( time timeout ${AB_S:-150} python3 -m lab.experiments.ring_members_ab stages=${STAGES:-3,4} ${SHAPES:-} ) > $OUT/ring_members_ab.log 2>&1
echo "ring_members_ab: rc $?"; grep -E "^[0-9]+x|Error|error|real" $OUT/ring_members_ab.log | cut -c1-260
