#!/bin/bash
# Session 42: 512^3 ran 13.7 (NN) / 14.8 us (NT) as the sweep's 4th shape and 11.4 / 11.9 as its 7th (session42_c).
# Which is it: the shapes before it (their tensors freed into torch's allocator) or the seed (the sweep seeds shape i
# with i)?  The sweep on 512, 128, 256, 384, 512, 512 (lab/device_runs/order512_s42.json) in NT; order_probe with
# seeds 3 and 6 in a fresh process each.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s42
_sweep "order512 NT" 100 order512-NT.json order512-NT.md order512-NT.log --suite lab/device_runs/order512_s42.json --layout NT
grep '^\[' $OUT/order512-NT.log
for s in 3 6; do
    lab_ab order_probe 60 members=plain-32x64 seed=$s NT:512x512x512 | grep -v "kernels\|Warn"
    mv $OUT/order_probe.json $OUT/order_probe_seed$s.json
done
archive session42_d
