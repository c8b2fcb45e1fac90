#!/bin/bash
# Session 36 (issue 20): the session's library - the whole GPU suite (the ring's new GPU tests among them; no family
# kernel changed: every member's PTX is session 35's).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s36f
gpu_suite ${G_S:-330}
archive session36_f
