#!/bin/bash
# Session 7, issue 20: the cp.async ring (stages 3 / 4, codegen/program.py) against the members the
# table picks, on the shapes below cuBLAS and a few above, interleaved with cuBLAS
# (lab/experiments/tiny_longk_kernels.py); then the ring's correctness on the GPU for the stream-K
# kernels the interpreter does not run (ragged shapes against float64, C poisoned).
. lab/device_runs/prelude.sh /tmp/rtc_s7r
W=wide-64x128-k16
N=sass_pass=0
( timeout 420 python3 -m lab.experiments.tiny_longk_kernels \
    64x4096x4096:$W,$W+stages=3,$W+stages=4,wide-64x128+bk=32+stages=3 \
    128x2048x2048:sq-64x64,sq-64x64+stages=3,$W+stages=3 \
    2000x2000x2000:$W,$W+stages=3,wide-128x256-noedge+stages=3+$N,tall-256x128+stages=3+$N \
    7000x1760x1760:tall-128x64-k16,tall-128x64-k16+stages=3,tall-256x128+stages=3+$N \
    8192x128x8192:$W,$W+stages=3,$W+stages=4,wide-64x128+bk=32+stages=3 \
    64x1024x500000:$W,$W+stages=3 512x1024x4096:$W,$W+stages=3 \
    4096x4096x4096:wide-128x256,wide-128x256-noedge+stages=3+$N,wide-128x256-noedge+stages=4+$N \
    512x8192x8192:wide-128x256-noedge,wide-128x256-noedge+stages=3+$N \
    768x512x768:splitk-64x128,$W+stages=3,sq-64x64+stages=3 \
    1023x1025x1023:wide-64x128+unaligned_rows=1,$W+stages=3 48x2048x8192:skinny-m48,skinny-m48+stages=3 \
    255x257x65537:tall-128x64-k16+unaligned_rows=1,tall-128x64-k16+stages=3 ) > $OUT/ring.log 2>&1
echo "ring: rc $?"; grep -v Warn $OUT/ring.log | grep sgemm | sed 's/regtile_sgemm_//' | cut -c1-130; grep -v Warn $OUT/ring.log | grep -iE "error|wrong" | head -5
( timeout 120 python3 - <<'PY'
import sys
sys.path.insert(0, "tests/gpu")
from gpu_helpers import check_config
from regtile.codegen.heuristic import member_config
bad = 0
for name, extra in (("wide-64x128-k16", {}), ("tall-128x64-k16", {}), ("wide-128x256-noedge", {"sass_pass": False}),
                    ("sq-64x64", {}), ("skinny-m48", {})):
    for stages in (3, 4):
        for m, n, k, a, b in ((3, 517, 2053, 1.0, 0.0), (517, 5, 2053, 0.5, -1.5), (257, 130, 61, 1.0, 0.0),
                              (1000, 1001, 333, 1.0, 0.25), (300, 260, 1004, 1.0, 0.0), (1, 1, 1, 1.0, 0.0)):
            cfg, backend = member_config(name, m, n, k, 132)
            cfg = cfg.replace(stages=stages, **extra)
            try:
                check_config(cfg, m, n, k, a, b, backend=backend, what=f"{name} stages={stages}")
            except AssertionError as e:
                bad += 1
                print("WRONG", e)
print(f"ring correctness: {bad} wrong of 60")
PY
) > $OUT/ring_check.log 2>&1; echo "ring check: rc $?"; tail -4 $OUT/ring_check.log
