#!/bin/bash
# Session 26 (issue 20): the first H200 the device tool lends.  The suite's sweep and held-out 4, 1, 3 through
# regtile.sgemm as committed (table fitted on the H100), with the device's copy bandwidth and properties.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s26
nvidia-smi -q | grep -iE "product name|clocks|graphics|memory  |SM  |max" | head -20
python3 -c "import torch; p = torch.cuda.get_device_properties(0); print(p.name, p.multi_processor_count, 'SMs', p.L2_cache_size >> 20, 'MB L2', p.total_memory >> 30, 'GiB')"
sweep ${SWEEP_S:-150}
heldout_sweeps ${H_S:-75} 4 1 3
archive session26_a
