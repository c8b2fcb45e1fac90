#!/bin/bash
# Session 8, last run (issue 20): the whole GPU suite at the session's last commit.
. lab/device_runs/prelude.sh /tmp/rtc_s8z
export REGTILE_TEST_CACHE_DIR=/tmp/rtc_s8z
gpu_suite 330
