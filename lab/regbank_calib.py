"""Register-bank calibration microbenchmark: FFMA throughput by source banks and reuse.

The kernel and its variants (CPU, no GPU): lab/regbank_variants.py, which compiles a long
unrolled run of independent FFMAs and rewrites the register fields and reuse bits of every
FFMA of its loop in the cubin (sass/isa.py's fields) to give variants by source banks and reuse.

GPU part (`--time`, run on the H100): loads each cubin with cuModuleLoadData, launches
SMs x blocks_per_sm blocks of 4 sub-partitions x warps_per_smsp warps, and reads
per-warp clock64() deltas around the loop from a buffer.  The measure is issue cycles
per FFMA per sub-partition (1.0 = one warp FFMA per cycle, the sm_90 peak) from the
makespan - per block, its slowest warp - with an event-timed cross-check at the given
SM clock; the table sets it beside what each hypothesis (HYPOTHESES) predicts from the
variant's SASS, and ranks the hypotheses by RMS error.

    python3 -m regtile.lab.regbank_calib --out build/calib          # CPU: cubins + manifest.json
    python3 -m regtile.lab.regbank_calib --out build/calib --time   # GPU: also time each variant
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .regbank_variants import (ACCS, DEFAULT_FFMAS, DEFAULT_SM_CLOCK_MHZ, KERNEL, SOURCES, Built, CalibError,
                               build_all, write)


# ---- GPU timing (run on the device machine) --------------------------------------------------
def _check(res):
    err = res[0] if isinstance(res, tuple) else res
    from cuda.bindings import driver as cu
    if err != cu.CUresult.CUDA_SUCCESS:
        raise CalibError(f"CUDA driver error {err!r}")
    if isinstance(res, tuple):
        return res[1] if len(res) == 2 else res[1:]
    return None


def time_variants(builts: Sequence[Built], ffmas: int, iters: int, warps_per_smsp: int, blocks_per_sm: int,
                  sm_clock_mhz: float) -> List[dict]:
    """Time each variant.  The measure is the *makespan*: per block, the longest of its
    warps' clock64() deltas (warps start together and share the sub-partitions), over
    the FFMAs all warps of a sub-partition issue in it.  The median warp's delta
    (`issue_cycles_per_ffma_per_smsp`, the first runs' column) is no throughput: the
    scheduler favours some warps, which finish early and leave the issue slots to the
    others (it gave 0.84 cycles per FFMA for reuse variants, below the 1.0 floor)."""
    import numpy as np
    from cuda.bindings import driver as cu
    try:
        _check(cu.cuInit(0))
    except CalibError:
        raise
    except Exception as e:  # no driver library on this machine
        raise CalibError(f"--time needs an NVIDIA driver and an sm_90 GPU: {e}") from None
    dev = _check(cu.cuDeviceGet(0))
    major = _check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    sms = _check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev))
    if major != 9:
        raise CalibError(f"the cubins are sm_90 SASS; device 0 is compute capability {major}.x")
    ctx = _check(cu.cuDevicePrimaryCtxRetain(dev))
    _check(cu.cuCtxSetCurrent(ctx))
    threads = 4 * warps_per_smsp * 32
    blocks = sms * blocks_per_sm
    warps = blocks * threads // 32
    per_smsp = warps_per_smsp * blocks_per_sm  # warps sharing one sub-partition
    accs = max([b.accs for b in builts] or [ACCS])
    host_in = (np.arange(32 * (SOURCES + accs), dtype=np.float32) % 7 + 1) * 1e-3
    d_in = _check(cu.cuMemAlloc(host_in.nbytes))
    d_out = _check(cu.cuMemAlloc(blocks * threads * 4))
    d_cyc = _check(cu.cuMemAlloc(warps * 8))
    _check(cu.cuMemcpyHtoD(d_in, host_in.ctypes.data, host_in.nbytes))
    start, stop = _check(cu.cuEventCreate(0)), _check(cu.cuEventCreate(0))
    rows = []
    try:
        for b in builts:
            image = np.frombuffer(b.cubin, dtype=np.uint8).copy()
            mod = _check(cu.cuModuleLoadData(image.ctypes.data))
            fn = _check(cu.cuModuleGetFunction(mod, KERNEL.encode()))
            vals = [np.array([int(d_in)], np.uint64), np.array([int(d_out)], np.uint64),
                    np.array([int(d_cyc)], np.uint64), np.array([iters], np.int32)]
            params = np.array([v.ctypes.data for v in vals], dtype=np.uint64)

            def launch():
                _check(cu.cuLaunchKernel(fn, blocks, 1, 1, threads, 1, 1, 0, 0, params.ctypes.data, 0))

            launch()  # warm-up: module load, clocks up
            _check(cu.cuCtxSynchronize())
            _check(cu.cuEventRecord(start, 0))
            launch()
            _check(cu.cuEventRecord(stop, 0))
            _check(cu.cuEventSynchronize(stop))
            ms = _check(cu.cuEventElapsedTime(start, stop))
            cyc = np.zeros(warps, np.int64)
            _check(cu.cuMemcpyDtoH(cyc.ctypes.data, d_cyc, cyc.nbytes))
            _check(cu.cuModuleUnload(mod))
            work = iters * ffmas  # FFMAs per warp
            per_warp = float(np.median(cyc)) / work
            block_max = cyc.reshape(blocks, threads // 32).max(axis=1)
            makespan = float(np.median(block_max)) / (work * per_smsp)
            total = warps * work  # warp-level FFMAs
            event_cpf = ms * 1e-3 * sm_clock_mhz * 1e6 * sms * 4 / total
            rows.append({"variant": b.variant.name, "description": b.variant.description,
                         "makespan_cycles_per_ffma_per_smsp": round(makespan, 4),
                         "event_cycles_per_ffma_per_smsp": round(event_cpf, 4),
                         "cycles_per_ffma_per_warp": round(per_warp, 4),
                         "issue_cycles_per_ffma_per_smsp": round(per_warp / per_smsp, 4),
                         "clock64_spread": [int(cyc.min()), int(cyc.max())], "ms": round(ms, 4)})
    finally:
        for p in (d_in, d_out, d_cyc):
            cu.cuMemFree(p)
    return rows


def _fit(rows: Sequence[dict], manifest: dict) -> Dict[str, float]:
    """Each hypothesis's RMS error against the measured makespan, over all variants."""
    pred = {e["name"]: e["predicted_cycles_per_ffma_per_smsp"] for e in manifest["variants"]}
    out = {}
    for h in manifest["hypotheses"]:
        errs = [(pred[r["variant"]][h] - r["makespan_cycles_per_ffma_per_smsp"]) ** 2 for r in rows
                if r["variant"] in pred]
        out[h] = round((sum(errs) / len(errs)) ** 0.5, 4) if errs else float("nan")
    return out


LEGEND = """\
measured: issue cycles per FFMA per sub-partition (1.000 = one warp FFMA per cycle, the
  sm_90 peak), from the makespan (per block, its slowest warp's clock64 delta; median over
  blocks).  events: the same from event time at --sm-clock-mhz.  median-warp: the first
  runs' column (median warp's delta / warps per SMSP): biased low by unfair scheduling.
predicted, from each variant's SASS (2 banks, bank = R % 2; reuse cache one entry per
  (slot, bank)):
  serial      1 cycle per FFMA + 1 per read beyond the first in its busiest bank
  serial+acc  the same, the c-slot read of the FFMA's own accumulator free
  banks       each bank serves one read per cycle, neighbouring FFMAs' reads overlap:
              max(1, reads of the busiest bank per FFMA)
  banks+acc   banks, own-accumulator c read free
  banks+rec16 banks, a read of a register written by one of the previous 16 instructions free
How to read the accumulator rows (a, b fixed in bank 0 plus the register under test):
  measured 2 + (share of the tested reads in bank 0), about 2.5: those reads count;
  2.0: they are free.  acc_e0e1 free but w7/w4/w7a_e0e1 counted: the own accumulator
  is special; all free: recently written registers are; acc32_e0e1 counted while
  acc_e0e1 is free: a window shorter than 32 FFMAs."""


def _table(rows: Sequence[dict], manifest: dict) -> str:
    info = {e["name"]: e for e in manifest["variants"]}
    hyps = manifest["hypotheses"]
    head = (f"{'variant':<20} {'measured':>8} {'events':>7} {'median-warp':>11} | " +
            " ".join(f"{h:>10}" for h in hyps) + "  first FFMA")
    lines = [head, "-" * len(head)]
    for r in rows:
        e = info.get(r["variant"], {})
        p = e.get("predicted_cycles_per_ffma_per_smsp", {})
        lines.append(f"{r['variant']:<20} {r['makespan_cycles_per_ffma_per_smsp']:>8.3f} "
                     f"{r['event_cycles_per_ffma_per_smsp']:>7.3f} {r['issue_cycles_per_ffma_per_smsp']:>11.3f} | " +
                     " ".join(f"{p.get(h, float('nan')):>10.3f}" for h in hyps) + f"  {e.get('first_ffma', '')}")
    fit = _fit(rows, manifest)
    best = min(fit, key=fit.get) if fit else None
    lines.append("RMS error vs measured: " + ", ".join(f"{h} {v:.3f}" for h, v in fit.items()) +
                 (f"  -> best fit: {best}" if best else ""))
    lines.append("")
    lines.append(LEGEND)
    lines.append("variants:")
    for r in rows:
        e = info.get(r["variant"], {})
        d = e.get("own_accumulator_written_ffmas_before", [0, 0])
        lines.append(f"  {r['variant']:<20} {e.get('question', '')}  [{e.get('accumulators', ACCS)} accumulators, "
                     f"own written {d[0]}{'' if d[0] == d[1] else '-' + str(d[1])} FFMAs before]")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m regtile.lab.regbank_calib", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="folder for the variant cubins and manifest.json")
    p.add_argument("--ffmas", type=int, default=DEFAULT_FFMAS,
                   help=f"FFMAs per loop iteration (default {DEFAULT_FFMAS}; 4096 checks instruction-fetch effects)")
    p.add_argument("--arch", default="sm_90", choices=("sm_90",), help="target (the fields are checked for sm_90)")
    p.add_argument("--variants", nargs="*", metavar="NAME", help="only these variants (default all)")
    p.add_argument("--time", action="store_true", help="time each variant on GPU 0 (needs an sm_90 GPU)")
    p.add_argument("--iters", type=int, default=8000, help="loop iterations per launch (default 8000)")
    p.add_argument("--warps-per-smsp", type=int, default=4, help="warps per sub-partition per block (default 4)")
    p.add_argument("--blocks-per-sm", type=int, default=1, help="blocks per SM (default 1)")
    p.add_argument("--sm-clock-mhz", type=float, default=DEFAULT_SM_CLOCK_MHZ,
                   help=f"SM clock for the event cross-check (default {DEFAULT_SM_CLOCK_MHZ})")
    p.add_argument("--json", action="store_true", help="print the results as JSON too")
    args = p.parse_args(argv)
    try:
        builts = build_all(args.ffmas, args.arch, args.variants)
        manifest = write(builts, args.out, args.ffmas, args.arch)
        print(f"wrote {len(builts)} variants and manifest.json to {args.out}")
        if not args.time:
            hyps = manifest["hypotheses"]
            print(f"  {'variant':<20} {'first FFMA':<36} predicted cycles/FFMA/SMSP: " + " ".join(f"{h:>10}" for h in hyps))
            for e in manifest["variants"]:
                p = e["predicted_cycles_per_ffma_per_smsp"]
                print(f"  {e['name']:<20} {e['first_ffma']:<36} {'':27} " + " ".join(f"{p[h]:>10.3f}" for h in hyps))
            return 0
        rows = time_variants(builts, args.ffmas, args.iters, args.warps_per_smsp, args.blocks_per_sm,
                             args.sm_clock_mhz)
        result = {"manifest": manifest, "iters": args.iters, "warps_per_smsp": args.warps_per_smsp,
                  "blocks_per_sm": args.blocks_per_sm, "sm_clock_mhz": args.sm_clock_mhz,
                  "fit_rms": _fit(rows, manifest), "rows": rows}
        (args.out / "timing.json").write_text(json.dumps(result, indent=2) + "\n")
        print(_table(rows, manifest))
        if args.json:
            print(json.dumps(rows, indent=2))
        return 0
    except CalibError as e:
        print(f"regbank_calib: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
