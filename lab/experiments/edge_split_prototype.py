"""Prototype: big-tile kernel on the block-aligned interior, small-tile stream-K kernel on the strips."""
import sys

from . import best_config, cublas_ms, load_ptx, program, save, time_kernel


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from regtile.codegen.presets import get_preset
    from regtile.runtime import bench
    from regtile.runtime.sgemm_launch import SgemmLaunch, workspace_bytes
    z = get_preset("zorder").config
    EDGES = {"e64x64x8_4x8": z.replace(bm=64, bn=64, tm=4, tn=8, warps=None, min_blocks=1, stream_k=True),
             "e64x64x16_8x8": z.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1, stream_k=True)}
    try:
        EDGES["e32x128x16_4x8"] = z.replace(bm=32, bn=128, bk=16, tm=4, tn=8, warps=None, min_blocks=1, stream_k=True)
    except Exception as e:
        print("no 32x128:", e)
    main = load_ptx(best_config(stream_k=True))
    edges = {k: load_ptx(c) for k, c in EDGES.items()}

    def split_launcher(edge, work, alpha, beta):
        m, n, k = work.m, work.n, work.k
        mi, ni = m // 128 * 128, n // 256 * 256
        parts = []
        for i in range(work.sets):
            a, b, c = work.a[i].ptr, work.b[i].ptr, work.c[i].ptr
            ls = []
            if mi and ni:
                ls.append((main, mi, ni, k, a, b, c))
            if m > mi:
                ls.append((edge, m - mi, n, k, a + 4 * mi * k, b, c + 4 * mi * n))
            if n > ni and mi:
                ls.append((edge, mi, n - ni, k, a, b + 4 * ni, c + 4 * ni))
            parts.append(ls)
        ws = work.workspace(max(workspace_bytes(kk, mm, nn, kx) for kk, mm, nn, kx, *_ in parts[0]))
        launches = [[SgemmLaunch(kk, mm, nn, kx, alpha, a, k, b, n, beta, c, n, ws) for kk, mm, nn, kx, a, b, c in ls]
                    for ls in parts]
        def launch(i, s):
            for L in launches[i]:
                L(s)
        return launch, launches[0]

    out = {}
    shapes = [tuple(map(int, a.split("x"))) for a in argv] or [(4097, 4097, 4097)]
    for shape in shapes:
        m, n, k = shape
        work = bench.GemmWorkload(m, n, k)
        try:
            for rnd in range(3):
                c_ms = cublas_ms(work)
                out.setdefault(f"{shape} cublas", []).append(c_ms)
                out.setdefault(f"{shape} main whole", []).append(c_ms / time_kernel(main, work, rnd).ms)
                for name, e in edges.items():
                    for ab in ((1.0, 0.0),) + (((0.5, -1.5),) if rnd == 0 else ()):
                        fn, Ls = split_launcher(e, work, *ab)
                        r = bench.check_and_time(fn, work, ab[0], ab[1], 20 if ab[1] == 0 else 0, check=(rnd == 0))
                        if rnd == 0:
                            print(shape, name, ab, "ok" if r.ok else f"WRONG {r.rel_err} {r.unwritten}", flush=True)
                            assert r.ok
                        if ab[1] == 0:
                            out.setdefault(f"{shape} split {name}", []).append(c_ms / r.ms)
                    if rnd == 0:
                        for j, L in enumerate(Ls):
                            for kk, grid, packed in L.steps:
                                one = lambda i, s, kk=kk, grid=grid, packed=packed: kk.launch(grid, (), s, packed=packed)
                                rr = bench.check_and_time(one, work, 1.0, 0.0, 20, check=False)
                                out[f"{shape} split {name} part {j} {kk.label} grid {grid}"] = rr.ms
        finally:
            work.close()
    save(out, "edge_proto.json")


main = program(_run, "shapes MxNxK (default 4097x4097x4097)")

if __name__ == "__main__":
    sys.exit(main())
