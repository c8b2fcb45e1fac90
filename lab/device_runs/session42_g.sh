#!/bin/bash
# Session 42's closing check: how fast an operand with unaligned rows copies into padded rows (pack_copy_speed: what
# a repack would cost with a copy of its own, session42_f having timed torch's), then the whole GPU suite at the
# commit (the skinny-n stand-in's new bounds).  Limits add up to 445 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
lab_ab pack_copy_speed ${P_S:-90}
gpu_suite ${G_S:-355}
archive session42_g
