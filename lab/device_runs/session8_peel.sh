#!/bin/bash
# Session 8, eighth run (issue 20): would peeling a one-column N edge pay (lab/experiments/peel_n.py)?
. lab/device_runs/prelude.sh /tmp/rtc_s8p
( timeout 200 python3 -m lab.experiments.peel_n 255x257x65537 1023x1025x1023 8191x8193x1025 513x129x16383 ) > $OUT/peel.log 2>&1
echo "peel: rc $?"; grep -v Warn $OUT/peel.log | tail -8
