#!/bin/bash
# Session 34 (issue 20): why fused-128x16 at split 2-16 runs 6-8 us behind split 1 on the same 256 blocks and bytes
# (session34_c: 32768x16x2048 s1 75.5 us, 16384x16x4096 s2 82.0, 2048x16x32768 s16 83.4): Nsight Compute on the
# three (the second launch of each), DRAM bytes and throughput, L2 hits, the SMs' active cycles.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s34i
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max
M=$M,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__inst_executed.sum
timeout ${N_S:-150} ncu --clock-control none --metrics $M --csv -k regex:regtile_fusedk \
    python3 -m lab.experiments.fused_n16 ncu=1 tiles=f128x16k32 splits=1 32768x16x2048 > $OUT/ncu_s1.csv 2> $OUT/ncu_s1.err
timeout ${N_S:-150} ncu --clock-control none --metrics $M --csv -k regex:regtile_fusedk \
    python3 -m lab.experiments.fused_n16 ncu=1 tiles=f128x16k32 splits=2 16384x16x4096 > $OUT/ncu_s2.csv 2> $OUT/ncu_s2.err
timeout ${N_S:-150} ncu --clock-control none --metrics $M --csv -k regex:regtile_fusedk \
    python3 -m lab.experiments.fused_n16 ncu=1 tiles=f128x16k32 splits=16 2048x16x32768 > $OUT/ncu_s16.csv 2> $OUT/ncu_s16.err
for f in s1 s2 s16; do echo "== $f"; grep -E '"[0-9]+","[0-9]+"' $OUT/ncu_$f.csv | awk -F'","' '{print $(NF-2), $NF}' | tail -26; done
archive session34_i
