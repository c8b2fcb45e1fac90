"""The first compile of a plan's kernels, cold (no compile cache), with the SASS stage's two kernels rewritten side
by side (runtime/sass_stage._run, session 41) and one after the other (as before it), alternating, ROUNDS each, each
compile in a fresh process (no GPU needed: NVRTC / nvJitLink, nvdisasm and the pass).  Prints each time and the
medians; writes first_compile_time.json under $OUT (else the current folder).

  python3 -m lab.experiments.first_compile_time [MxNxK ...] [rounds=3]   (default 4096x4096x4096: two kernels)

Session 41 (docs/data/session41/d_bb5cfed): 8.79 -> 6.13 s on the H200 machine's 16 CPUs, 6.4 -> 5.0 s on the 2-core
CPU machine; the same cubin.
"""
import os
import statistics
import tempfile
import time

from lab.experiments import program, take_option, write_out


def _compile_cold(shape):
    """(seconds, cubin) of the plan's kernels for M x N x K, compiled into an empty compile cache."""
    from regtile.codegen import heuristic as h
    from regtile.runtime.compiler import compile_config
    cfg, backend = h.choose_kernel(*shape, "sm_90", 132)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["REGTILE_CACHE_DIR"] = cache
        t = time.perf_counter()
        art = compile_config(cfg, "sm_90", backend=backend)
        return time.perf_counter() - t, art.cubin


def _measure(form, shape):
    """One cold compile in a fresh process (the pass's in-memory caches - nvdisasm's texts, fields.locate's memo -
    would serve a second compile of the same kernels): (seconds, sha256 of the cubin)."""
    import subprocess
    import sys
    res = subprocess.run([sys.executable, "-m", "lab.experiments.first_compile_time", "one=" + form,
                          "x".join(map(str, shape))], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"the {form} compile of {shape} failed:\n{res.stderr}")
    seconds, digest = res.stdout.split()[-2:]
    return float(seconds), digest


def run(argv):
    form = take_option(argv, "one")
    rounds = int(take_option(argv, "rounds") or 3)
    shapes = [tuple(int(x) for x in s.split("x")) for s in argv] or [(4096, 4096, 4096)]
    if form is not None:  # the child: one compile
        import hashlib
        from regtile.runtime import sass_stage
        if form == "sequential":  # as before session 41
            side_by_side = sass_stage._run
            sass_stage._run = lambda *args: side_by_side(*args, side_by_side=False)
        seconds, cubin = _compile_cold(shapes[0])
        print(f"{seconds:.3f} {hashlib.sha256(cubin).hexdigest()}")
        return
    out = []
    for shape in shapes:
        times = {"side by side": [], "one after the other": []}
        digests = set()
        for _ in range(rounds):
            for label, child in (("side by side", "threads"), ("one after the other", "sequential")):
                seconds, digest = _measure(child, shape)
                times[label].append(seconds)
                digests.add(digest)
                print(f"{'x'.join(map(str, shape))}: {label} {seconds:.2f} s", flush=True)
        med = {label: statistics.median(v) for label, v in times.items()}
        print(f"{'x'.join(map(str, shape))}: medians {med['one after the other']:.2f} -> {med['side by side']:.2f} s; "
              f"{len(digests)} distinct cubin(s); {os.cpu_count()} CPUs")
        out.append({"shape": shape, "times": times, "medians": med, "same_cubin": len(digests) == 1,
                    "cpus": os.cpu_count()})
    write_out("first_compile_time.json", out)


main = program(run, "[MxNxK ...] [rounds=N]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
