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
