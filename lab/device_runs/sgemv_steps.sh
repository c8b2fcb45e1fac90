# Sourced by the SGEMV device recipes (after prelude.sh; they define T0, el and PROBE): the steps
# they share, each bounded by seconds since the recipe's start (el) so the whole call fits.
#   sgemv_sweep END MARGIN      the suite with probes on $PROBE, new shapes started until END s
#   sgemv_sanitize CASES MEM_END RACE_END MIN
#                               compute-sanitizer memcheck, then racecheck if MIN s are left,
#                               on tests/gpu/sgemv_memcheck_script.py's SGEMV_CASES=CASES
sgemv_sweep() {
  local budget=$(( $1 - $(el) ))
  timeout $(( budget + $2 )) python3 -m regtile.tools.sgemv_sweep --out $OUT/sgemv-sweep.json --probe-shapes $PROBE \
    --budget-s $budget > $OUT/sweep.log 2>&1
  echo "sweep: rc $? at $(el) s (budget $budget)"; grep -c "^[0-9]*x[0-9]* [NT]:" $OUT/sweep.log
}

sgemv_sanitize() {
  local left=$(( $2 - $(el) ))
  { echo "## SGEMV_CASES=$1 compute-sanitizer --tool memcheck"; SGEMV_CASES=$1 timeout $left \
    compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/sgemv_memcheck_script.py; echo "rc $?"; } > $OUT/checks.log 2>&1
  left=$(( $3 - $(el) ))
  [ $left -gt $4 ] && { echo "## racecheck"; SGEMV_CASES=$1 timeout $left compute-sanitizer --tool racecheck \
    --error-exitcode 9 python3 tests/gpu/sgemv_memcheck_script.py; echo "rc $?"; } >> $OUT/checks.log 2>&1
  echo "checks at $(el) s:"; grep -E "SUMMARY|WRONG|^rc|^## |done" $OUT/checks.log
  grep -E "^[0-9]*x[0-9]* [NT]:" $OUT/sweep.log | awk '{print $1,$2,$4,$7,$9,$12,$15}' | tail -44
}
