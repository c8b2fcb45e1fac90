#!/bin/bash
# Session 30 (issue 20): every candidate member on the skinny probe (benchmarks/shapes-skinny-probe.json, shapes-fit-skinny.json when it ran; 436 shapes: M or
# N of 20-48 against a big side of 1024-32768 and K of 1024-16384, where the table had no shape near and held-out
# decode-like shapes fell to the model), then the suite's sweep through regtile.sgemm (no suite pick moves with the
# aligned grid: checked on the CPU in four layouts).
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s30b
candidates benchmarks/shapes-skinny-probe.json $OUT/shape-candidates-fit-skinny.json ${C_S:-290} candidates_skinny.log
sweep ${SWEEP_S:-150}
archive session30_b
