#!/bin/bash
# Session 13 (issue 20): the whole GPU suite at the session's last library.
. lab/device_runs/prelude.sh /tmp/rtc_s13
gpu_suite ${SUITE_S:-270}
