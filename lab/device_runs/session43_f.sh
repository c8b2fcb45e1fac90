#!/bin/bash
# Session 43: the rule's bound with one copy launch (3f1e72b; d timed two launches).  repack_rule_ab rules=AB (the
# plan in place against both operands copied, whatever m n / (m + n)) in NT and TT: the four held-out shapes of
# 706-874 that d timed, then eight shapes of the ragged fitting grids with 722-968 (never timed repacked); then the
# parts of two repacked plans (e's parts=1 counted two copy launches).  Limits add up to 280 s.
REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r; mkdir -p $OUT
. lab/device_runs/prelude.sh /tmp/rtc_s43
lab_ab repack_rule_ab ${H_S:-75} rules=AB NT:1111x3333x2222 TT:1111x3333x2222 NT:1023x4095x2047 TT:1023x4095x2047 \
    NT:1531x2039x1021 TT:1531x2039x1021 NT:777x7777x777 TT:777x7777x777
mv $OUT/repack_rule_ab.json $OUT/repack_below1000.json; mv $OUT/repack_rule_ab.log $OUT/repack_below1000.log
lab_ab repack_rule_ab ${G_S:-150} rules=AB NT:1087x4346x546 TT:1087x4346x546 NT:2171x1090x1090 TT:2171x1090x1090 \
    NT:1535x1539x769 TT:1535x1539x769 NT:1087x8689x547 TT:1087x8689x547 NT:8687x1090x1090 TT:8687x1090x1090 \
    NT:767x12291x769 TT:767x12291x769 NT:4343x1090x2174 TT:4343x1090x2174 NT:12287x770x770 TT:12287x770x770
mv $OUT/repack_rule_ab.json $OUT/repack_grid.json; mv $OUT/repack_rule_ab.log $OUT/repack_grid.log
lab_ab repack_rule_ab ${P_S:-40} rules=none parts=1 TT:2049x2047x1025 NT:4099x4093x4091
mv $OUT/repack_rule_ab.json $OUT/repack_parts.json; mv $OUT/repack_rule_ab.log $OUT/repack_parts.log
archive session43_f
