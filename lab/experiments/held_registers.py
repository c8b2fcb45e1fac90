"""The k16 members' kernels held at a register cap (issue 20): config.max_registers (PTX `.maxnreg CAP`
on every entry; until 1baabbb this experiment wrote the line into the text itself: the same text but
for the kernel's name and its config comment).  The fused last column (config.last_col)
takes the k16 members' stream-K ranges kernel from 167 to 173-183 registers, two blocks of 128 threads an
SM where it ran three; at `.maxnreg 168` ptxas fits it in 159-165 without spilling (NVRTC 13.0, sm_90).
The cap also changes the kernels without the column (the ranges kernel's conflicted FFMAs 0.147 -> 0.064 of
its main loop), so those are timed held too.

For each shape: the plan regtile.sgemm builds ("lib"), the same config held ("lib_held"), and the other
side of the fused column where it can take one (N % BN == 1: "col"/"col_held" where the library does
not fuse, "without"/"without_held" where it does), against cuBLAS, interleaved kernel against kernel on
tools/shape_sweep's ShapeBench (each checked against float64 first, C NaN-poisoned).  Writes
held_registers.json under $OUT.

    python3 -m lab.experiments.held_registers [cap=168] [slots=N] [MxNxK ...]
"""
from . import over_shapes, program, time_plans

DEFAULT = ["1023x1025x1023", "1000x1025x1000", "255x257x65537", "4096x257x4096", "2048x2049x2048",
           "8192x128x8192", "64x4096x4096", "1009x1013x1019", "512x1024x4096"]
CAP = [168]
SLOTS = [0]  # slots=N: also each held plan with its stream-K work list at N blocks an SM


def k16(cfg) -> bool:
    """The tiles operand_forms.for_columns holds (LAST_COL_HELD: the k16 members', 128 threads)."""
    from regtile.codegen.operand_forms import LAST_COL_HELD, tile_of
    return tile_of(cfg) in LAST_COL_HELD


def with_slots(plan, per_sm):
    """A copy of `plan` whose stream-K work list counts `per_sm` blocks an SM (its kernels loaded
    again, outside the driver's cache, with the occupancy answer set)."""
    import copy
    from regtile.runtime import driver
    other = copy.copy(plan)
    other._bound = {}
    other.kernel = driver.LoadedKernel(plan.kernel.artifact, plan.kernel.label + f" s{per_sm}")
    for kern in (other.kernel, other.kernel.ranges):
        if kern is not None:
            kern._blocks_per_sm = per_sm
    return other


def one(torch, bench, m, n, k):
    from regtile.codegen.config import ConfigError
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or lib.backend != "ptx":
        return row, f"not a PTX plan ({row['config']})"
    plain = lib.config.replace(max_registers=0)  # the library holds its fused k16 kernels already
    configs = {"lib": plain}
    if n % plain.bn == 1:
        try:
            configs["without" if plain.last_col else "col"] = plain.replace(last_col=not plain.last_col)
        except ConfigError as e:
            row["col_refused"] = str(e)
    plans = {}
    for name, cfg in configs.items():
        plans[name] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend="ptx")
        if not k16(cfg):  # the cap is three blocks of 128 threads' (wide-128x256 and 32x256x16 spill under it)
            continue
        held = cfg.replace(max_registers=CAP[0])
        plans[name + "_held"] = p = GemmPlan(m, n, k, False, False, k, n, n, config=held, backend="ptx")
        if SLOTS[0]:
            plans[name + f"_held_s{SLOTS[0]}"] = with_slots(p, SLOTS[0])
    return time_plans(torch, bench, plans, row, lib.kernel.label)


def run(argv):
    for flag, box in (("cap=", CAP), ("slots=", SLOTS)):
        for a in [a for a in argv if a.startswith(flag)]:
            box[0] = int(a[len(flag):])
            argv.remove(a)
    over_shapes(argv, DEFAULT, "held_registers.json", one)


main = program(run, "[cap=N] [slots=N] [MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
