"""Registers and spills of every PTX kernel tests/family_cases.py pins (each FAMILY member, plain, in the
other layouts, batched, with the unaligned rows' forms), compiled here for sm_90 by this machine's
nvJitLink, without the compile cache.  Session 28 (issue 20): the device's toolchain spilled sq-128x128
(4 bytes at its cap of 128) where the CPU machine's did not - the same text - so the census runs where the
kernels run.  Prints the compiler versions, one line a kernel that spills or sits at its cap, and a
summary; writes family_registers.json under $OUT (key -> [registers, spill stores, spill loads, cap]).

    python3 -m lab.experiments.family_registers [JOBS=16]
"""
from . import program


def _one(key):
    import sys
    sys.path.insert(0, "tests")
    from family_cases import cases, make
    from regtile.codegen.emit import emit
    from regtile.runtime.compiler import compile_source
    try:
        cfg, backend = make(cases()[key])
        src = emit(cfg, backend)
    except Exception:  # a case its backend refuses (family_cases digests it as None)
        return key, None
    r = compile_source(src, "sm_90", False).resources
    return key, [r.registers, r.spill_store_bytes, r.spill_load_bytes, cfg.register_cap()]


def run(argv):
    import json
    import os
    import sys
    from multiprocessing import Pool
    sys.path.insert(0, "tests")
    from family_cases import cases
    from regtile.runtime.compiler import nvjitlink_version, nvrtc_version
    print("nvrtc", nvrtc_version(), "nvjitlink", nvjitlink_version(), flush=True)
    keys = [k for k, case in sorted(cases().items()) if case[1] == "ptx"]
    with Pool(int(argv[0]) if argv else 16) as pool:
        out = dict(pool.map(_one, keys))
    out = {k: v for k, v in out.items() if v is not None}
    for k, (regs, st, ld, cap) in out.items():
        if st or ld or regs >= cap:
            print(f"{k}: {regs} registers (cap {cap}), spill {st} / {ld} bytes", flush=True)
    spills = sum(1 for v in out.values() if v[1] or v[2])
    print(f"{len(out)} kernels, {spills} spill")
    with open(os.path.join(os.environ.get("OUT", "."), "family_registers.json"), "w") as f:
        json.dump(out, f, indent=1)


main = program(run, "JOBS: compile processes (default 16)")
if __name__ == "__main__":
    raise SystemExit(main())
