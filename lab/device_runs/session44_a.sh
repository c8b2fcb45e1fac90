#!/bin/bash
# Prepared in session 43 for the next session: what session 43 measured shape by shape only.  Its last changes (one
# copy launch for both operands, 3f1e72b; NT and TT repacking from m n / (m + n) >= 700, 734fb72) were timed on the
# shapes they change (docs/data/session43/e, f), not through whole sweeps.  The repack and API GPU tests; the suite
# and the held-out sets in NT and TT through regtile.sgemm.  Limits add up to 560 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s44
gpu_tests ${T_S:-120} "" tests/gpu/test_repack_gpu.py tests/gpu/test_api_gpu.py
layout_sweep NT ${NT_S:-110}
layout_sweep TT ${TT_S:-110}
heldout_layout NT ${HNT_S:-110}
heldout_layout TT ${HTT_S:-110}
archive session44_a
