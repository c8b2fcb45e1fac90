# Sourced by the device recipes of this folder, from the repository root on the GPU machine:
# `. lab/device_runs/prelude.sh CACHE_DIR`.  Installs the working tree (editable, no deps: the
# device has no registry), names the GPU, the commit (REGTILE_COMMIT, or REGTILE_REV as the
# older recipes passed it: .git does not travel) and the time; $OUT defaults to the current
# folder; CACHE_DIR is the compile cache the recipe keeps between its steps.
set -u
export PYTHONUNBUFFERED=1 REGTILE_CACHE_DIR=${REGTILE_CACHE_DIR:-${1:-/tmp/rtc}}
OUT=${OUT:-.}
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit ${REGTILE_COMMIT:-${REGTILE_REV:-unknown}} $(date -u +%FT%TZ)"

# archive NAME: every output under $OUT into one archive, $REAL_OUT/NAME.tgz (the device returns a handful of
# files a call, so a recipe that writes many sets `REAL_OUT=${OUT:-.}; export OUT=$REAL_OUT/r` first).
archive() { tar czf $REAL_OUT/$1.tgz -C $REAL_OUT $(basename $OUT) && rm -rf $OUT; }

# candidates SUITE RAW SECONDS [LOG]: time every candidate member of SUITE's shapes into RAW (shape_sweep
# --candidates, within SECONDS; its log $OUT/LOG, default candidates.log); prints a line a shape.
candidates() {
    local log=$OUT/${4:-candidates.log}
    ( time timeout $3 python3 -m regtile.tools.shape_sweep --candidates --suite $1 --json $2 \
        --budget-s $(( $3 - 20 )) ) > $log 2>&1
    echo "candidates: rc $?"; grep -E "compiled|^\[" $log | cut -c1-160
}

# candidates_and_refit SUITE RAW SECONDS [STICKY]: candidates (above), then refit codegen/heuristic_table.json
# over the table's own sources with RAW last (its shapes replace theirs; with STICKY, e.g. 0.03, an entry keeps
# its member where that is within STICKY of the fastest) and copy it to $OUT.  The model stays fitted on the runs
# the table's model_source names where it names them (session 40: --fit's default; --refit-model would refit it).
candidates_and_refit() {
    candidates $1 $2 $3
    python3 -m regtile.tools.shape_sweep --fit $(python3 -c "import json; print(' '.join('docs/data/' + s for s in
        json.load(open('codegen/heuristic_table.json'))['source'].split(', ')))") $2 ${4:+--sticky $4} \
        && cp codegen/heuristic_table.json $OUT/
}

# gpu_suite SECONDS: the whole GPU suite (12 workers) into $OUT/pytest_gpu.log; prints its failures and count.
gpu_suite() {
    ( time timeout $1 python3 -m pytest -m gpu tests/gpu -q -rf -p no:cacheprovider -n 14 ) > $OUT/pytest_gpu.log 2>&1
    echo "gpu suite: rc $?"; grep -E "FAILED|ERROR" $OUT/pytest_gpu.log | head -20; grep -E "passed|failed" $OUT/pytest_gpu.log | tail -1
}

# gpu_tests SECONDS KEXPR FILE...: those GPU test files, filtered by pytest's -k KEXPR, within SECONDS, into
# $OUT/pytest.log; prints its failures and count.
gpu_tests() {
    local seconds=$1 kexpr=$2; shift 2
    ( time timeout $seconds python3 -m pytest -q -p no:cacheprovider -n 14 "$@" -k "$kexpr" ) > $OUT/pytest.log 2>&1
    echo "tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest.log | tail -8
}

# lab_ab MODULE SECONDS [args]: python3 -m lab.experiments.MODULE args within SECONDS into $OUT/MODULE.log; prints it.
lab_ab() {
    local module=$1 seconds=$2; shift 2
    ( time timeout $seconds python3 -m lab.experiments.$module "$@" ) > $OUT/$module.log 2>&1
    echo "$module: rc $?"; cut -c1-330 $OUT/$module.log | grep -v "^$"
}

# lab_ab_both MODULE SECONDS [args]: lab_ab twice, back to back as the sweep times (its outputs renamed
# MODULE_stream.json / .log), then with graph=1 (CUDA graphs of 20 calls: lab/experiments.time_plans_graphs).
lab_ab_both() {
    local module=$1 seconds=$2; shift 2
    lab_ab $module $seconds "$@"
    mv $OUT/$module.json $OUT/${module}_stream.json; mv $OUT/$module.log $OUT/${module}_stream.log
    lab_ab $module $seconds graph=1 "$@"
}

# _sweep LABEL SECONDS JSON MD LOG [shape_sweep args]: regtile.tools.shape_sweep (regtile.sgemm as committed
# against cuBLAS) into $OUT/JSON, $OUT/MD and $OUT/LOG within SECONDS; prints its summary line.
_sweep() {
    local label=$1 seconds=$2 json=$OUT/$3 md=$OUT/$4 log=$OUT/$5; shift 5
    timeout $seconds python3 -m regtile.tools.shape_sweep "$@" --json $json --md $md \
        --budget-s $(( seconds - 25 )) > $log 2>&1
    echo "$label: rc $? $(grep -c '^\[' $log) shapes"; sed -n 3,4p $md
}

# sweep SECONDS: the suite's sweep into $OUT/shape-sweep.json and $OUT/shapes_table.md ($OUT/sweep.log).
sweep() { _sweep sweep $1 shape-sweep.json shapes_table.md sweep.log; }

# layout_sweep LAYOUT SECONDS: the suite's sweep in another layout (NT, TN, TT) against cuBLAS's into
# $OUT/shape-sweep-LAYOUT.json, $OUT/shapes_table_LAYOUT.md ($OUT/sweep_LAYOUT.log).
layout_sweep() { _sweep "sweep $1" $2 shape-sweep-$1.json shapes_table_$1.md sweep_$1.log --layout $1; }

# heldout_layout LAYOUT SECONDS: all 195 held-out shapes (lab/device_runs/heldout_all_s30.json, the five sets in one
# file) in LAYOUT (NT, TN, TT) against cuBLAS's same layout into $OUT/heldout-LAYOUT.{json,md,log}.
heldout_layout() {
    _sweep "held-out $1" $2 heldout-$1.json heldout-$1.md heldout-$1.log --suite lab/device_runs/heldout_all_s30.json \
        --layout $1
}

# fewvec_checks SECONDS: the few-vector and API GPU tests (within SECONDS) into $OUT/pytest_fewvec.log, then the
# few-vector memcheck script under compute-sanitizer into $OUT/memcheck_fewvec.log; prints both summaries.
fewvec_checks() {
    ( time timeout $1 python3 -m pytest -q -p no:cacheprovider -n 8 tests/gpu/test_fewvec_gpu.py tests/gpu/test_api_gpu.py ) \
        > $OUT/pytest_fewvec.log 2>&1
    echo "fewvec tests: rc $?"; grep -E "FAILED|ERROR|passed|failed" $OUT/pytest_fewvec.log | tail -8
    ( timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 python3 tests/gpu/fewvec_memcheck_script.py ) \
        > $OUT/memcheck_fewvec.log 2>&1
    echo "memcheck: rc $?"; grep -E "ERROR SUMMARY|WRONG|done" $OUT/memcheck_fewvec.log | head -5
}

# sweep_suite SUITE NAME SECONDS: as sweep, over another suite (e.g. benchmarks/shapes-heldout.json) into
# $OUT/NAME.json, $OUT/NAME.md and $OUT/NAME.log; prints its summary line and the shapes below 1.0x.
sweep_suite() {
    _sweep $2 $3 $2.json $2.md $2.log --suite $1
    python3 -c "import json, sys; rows = json.load(open(sys.argv[1]))
for r in sorted(rows, key=lambda r: r['x_cublas'])[:12]:
    print(f\"  {r['m']}x{r['n']}x{r['k']} {r['x_cublas']:.3f} {r['regtile_us']:.1f}/{r['cublas_us']:.1f} {r['kernel'][:60]}\")" $OUT/$2.json
}

# heldout_sweeps SECONDS N...: sweep_suite over held-out set N (1: benchmarks/shapes-heldout.json, else
# shapes-heldout-N.json) for each N in order, SECONDS each, into $OUT/heldoutN.{json,md,log}.
heldout_sweeps() {
    local seconds=$1; shift
    for n in "$@"; do
        sweep_suite benchmarks/shapes-heldout$([ "$n" = 1 ] || echo "-$n").json heldout$n $seconds
    done
}

# last_calls NAME: a session's closing calls - the whole GPU suite with GPU=1 (GPU_S seconds), else held-out 4, 1,
# 2, 3 and 5 (H_S seconds each) and the suite's sweep (SWEEP_S) through regtile.sgemm as committed; archived as
# NAME0 / NAME1.
last_calls() {
    if [ "${GPU:-0}" = 1 ]; then
        gpu_suite ${GPU_S:-500}
    else
        heldout_sweeps ${H_S:-75} 4 1 2 3 5
        sweep ${SWEEP_S:-150}
    fi
    archive $1${GPU:-0}
}

# stall_samples NAME SHAPE...: Nsight Compute's per-instruction stall samples (SourceCounters, WarpStateStats) on both
# sides of each shape (lab/experiments/ncu_below.py --target: regtile's call, then torch.mm, one each under the
# profiler), the source page as CSV (SASS) for every kernel and `lab.experiments.ncu_source_stalls` on it
# ($OUT/stalls.txt); archived as NAME.
stall_samples() {
    local name=$1; shift
    ( time timeout ${NCU_S:-300} ncu --clock-control none --profile-from-start off --section SourceCounters \
        --section WarpStateStats -o $OUT/stalls python3 -m lab.experiments.ncu_below --target "$@" ) > $OUT/ncu.log 2>&1
    echo "ncu: rc $?"; tail -4 $OUT/ncu.log
    ncu -i $OUT/stalls.ncu-rep --page source --csv --print-source sass > $OUT/source_sass.csv 2> $OUT/source.err
    echo "source page: rc $? $(wc -l < $OUT/source_sass.csv) lines"; head -3 $OUT/source.err
    ncu -i $OUT/stalls.ncu-rep --page details --csv > $OUT/details.csv 2>> $OUT/source.err
    echo "details: rc $? $(wc -l < $OUT/details.csv) lines"; gzip $OUT/source_sass.csv
    python3 -m lab.experiments.ncu_source_stalls <(zcat $OUT/source_sass.csv.gz) > $OUT/stalls.txt 2>&1; head -40 $OUT/stalls.txt
    archive $name
}

# batched_memcheck SECONDS [gemv]: compute-sanitizer's memcheck on the batched choice (lab/device_runs/batched_memcheck.py,
# exact-size buffers; `gemv`: its batches of GEMVs) into $OUT/memcheck.log (memcheck_gemv.log); prints its rc, the
# correct cases and its summary.
batched_memcheck() {
    local log=$OUT/memcheck${2:+_$2}.log
    ( timeout $1 compute-sanitizer --tool memcheck --error-exitcode 9 python3 lab/device_runs/batched_memcheck.py \
        ${2:-} ) > $log 2>&1
    echo "memcheck: rc $?"; grep -cE " ok$" $log
    grep -E "WRONG|ERROR SUMMARY" $log | sort | uniq -c | head -5
}

# batched_sets SECONDS_HELD_OUT SECONDS_SUITE [args]: lab/experiments/batched_sweep.py on the held-out batched set
# ($OUT/batched_sweep_heldout.*), then on the batched suite ($OUT/batched_sweep.*), each with `args` (members=1: every
# member too).
batched_sets() {
    local held=$1 suite=$2; shift 2
    lab_ab batched_sweep $held "$@" suite=benchmarks/shapes-batched-heldout.json
    mv $OUT/batched_sweep.json $OUT/batched_sweep_heldout.json; mv $OUT/batched_sweep.log $OUT/batched_sweep_heldout.log
    lab_ab batched_sweep $suite "$@"
}
