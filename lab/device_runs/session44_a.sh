#!/bin/bash
# Prepared in session 43 for the next session: what session 43 measured shape by shape only.  Its last changes (one
# copy launch for both operands, 3f1e72b; NT and TT repacking from m n / (m + n) >= 700, 734fb72) were timed on the
# shapes they change (docs/data/session43/e, f), not through whole sweeps; the repack GPU tests' last two asserts
# (dedd65c) have not run.  The repack and API GPU tests; whether the copies' leading dimension of 4096 (K of
# 4089-4092: codegen/repack.padded) costs anything against 4100 (repack_rule_ab plus=8); the suite and the held-out
# sets in NT and TT through regtile.sgemm.  Limits add up to 560 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
gpu_tests ${T_S:-100} "" tests/gpu/test_repack_gpu.py tests/gpu/test_api_gpu.py
lab_ab repack_rule_ab ${P_S:-60} rules=AB plus=8 NT:4099x4093x4091 TT:4099x4093x4091 NN:4099x4093x4091
layout_sweep NT ${NT_S:-100}
layout_sweep TT ${TT_S:-100}
heldout_layout NT ${HNT_S:-100}
heldout_layout TT ${HTT_S:-100}
archive session44_a
