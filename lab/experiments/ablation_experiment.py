"""Ablation (issue 9): what each kind of non-FFMA work costs the best kernel, by deleting it.

PTX 128x256 8x16 (+ SASS pass where it still applies); inside the main loop only (between the
`ktile` label and its back branch) the PTX text loses: the fragment loads (`ld.shared`), the
global loads (`ld.global`), the shared stores and the barrier - alone and together.  The
results are wrong on purpose (stale fragments / tiles), so the kernels are timed only,
interleaved with cuBLAS (bench.interleave_with_cublas, check=False).  A variant's speed is a
ceiling for what scheduling that work perfectly could give back."""
import sys

from . import program


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    import dataclasses, re
    from regtile.codegen.presets import get_preset
    from regtile.codegen.emit import emit
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_source

    dev = driver.device()
    cfg = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1)


    def ablate(text: str, drop) -> str:
        lines = text.splitlines()
        top = next(i for i, l in enumerate(lines) if re.match(r"^\$L_ktile_\d+:", l.strip()))
        end = next(i for i, l in enumerate(lines) if i > top and "bra.uni $L_ktile_" in l)
        body = [l for l in lines[top:end] if not any(d in l for d in drop)]
        return "\n".join(lines[:top] + body + lines[end:]) + "\n"


    variants = {"full": (), "no frag LDS": ("ld.shared",), "no LDG": ("ld.global",),
                "no STS+BAR": ("st.shared", "bar.sync"), "no LDS+LDG": ("ld.shared", "ld.global"),
                "FFMA+loop only": ("ld.shared", "ld.global", "st.shared", "bar.sync")}
    arts = {}
    for sp in (False, True):
        for name, drop in variants.items():
            src = emit(cfg.replace(sass_pass=sp), "ptx")
            tag = f"{name}{' +pass' if sp else ''}"
            kname = src.name + ("_" + re.sub(r"\W", "", tag) if drop or sp else "")
            src = dataclasses.replace(src, name=kname, text=ablate(src.text, drop).replace(src.name, kname))
            try:
                arts[tag] = compile_source(src, dev.arch)
            except Exception as e:  # the pass may refuse a loop it no longer recognises
                print(f"{tag}: not built ({str(e).splitlines()[0][:120]})", flush=True)
    for tag, a in arts.items():
        print(f"{tag:24s} {a.resources.registers} registers, {'spill-free' if a.resources.spill_free else 'SPILLS'}", flush=True)
    from regtile.tools import interleave
    interleave.run(arts, interleave.sizes_from(argv, (4096,)), "ablation.json", check=False)


main = program(_run, "sizes (default 4096)")

if __name__ == "__main__":
    sys.exit(main())
