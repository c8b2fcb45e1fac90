#!/bin/bash
# Session 13 (issue 20): the rule's few-vector kernels prefetch 2 loop steps to L2 before their PDL wait
# (fewvec_config.PREFETCH_STEPS).  The fewvec and API GPU tests, the fewvec memcheck script, then the sweep.
. lab/device_runs/prelude.sh /tmp/rtc_s13
fewvec_checks ${TEST_S:-150}
sweep ${SWEEP_S:-240}
