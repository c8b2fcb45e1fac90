"""Every tuner-space config with the SASS pass, both backends: correct against float64?"""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import json, os, time
    from regtile.tools.tune import candidate_configs, compile_all
    from regtile.runtime import bench, driver
    from regtile.runtime.compiler import compile_config
    dev = driver.device()
    out = {"checked": 0, "wrong": [], "errors": 0}
    sizes = [(1000, 1000, 1000, 1.0, 0.0), (515, 257, 1031, 0.5, -1.5)]
    works = {s: bench.GemmWorkload(*s[:3]) for s in sizes}
    for backend in ("ptx", "cuda"):
        cfgs = [c.replace(sass_pass=True) for c in candidate_configs()]
        t0 = time.time()
        comp = compile_all(cfgs, dev.arch, 16, None, backend=backend)
        ok = [c for c in comp if c.spill_free]
        out[f"{backend}_compiled"] = len(comp); out[f"{backend}_spill_free"] = len(ok)
        out[f"{backend}_errors"] = [c.error for c in comp if c.error][:5]
        print(backend, len(comp), "compiled,", len(ok), "spill-free", f"{time.time()-t0:.0f}s", flush=True)
        for c in ok:
            art = compile_config(c.config, dev.arch, backend=backend)
            k = driver.load(art, "sweep")
            for s in sizes:
                w = works[s]
                r = bench.check_and_time(bench.kernel_launcher(k, w, s[3], s[4]), w, s[3], s[4], repeat=0, check=True)
                out["checked"] += 1
                if not r.ok:
                    out["wrong"].append({"backend": backend, "config": c.config.to_dict(), "size": s, "rel_err": r.rel_err,
                                         "unwritten": r.unwritten})
                    print("WRONG", backend, c.config.describe(), s, r.rel_err, flush=True)
        print(backend, "done", out["checked"], "checked,", len(out["wrong"]), "wrong", f"{time.time()-t0:.0f}s", flush=True)
    json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "passsweep.json"), "w"), indent=1)
    print(json.dumps({k: v for k, v in out.items() if k != "wrong"}), len(out["wrong"]))


main = program(_run)

if __name__ == "__main__":
    sys.exit(main())
