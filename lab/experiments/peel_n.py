"""An N edge of one column (issue 20: 255x257x65537, the one suite shape below 0.9x cuBLAS): N = 257 leaves
a tile column of one column, so about a fifth of the FFMAs of 64-wide tiles (cuBLAS's 128x64 too) are
padding.  Peeled instead: regtile.sgemm on C[:, :n-p] = A B[:, :n-p] (n - p a multiple of 64) and on the
last p columns (p = 1: an SGEMV of A by B's strided last column), against the library's whole plan and
cuBLAS, interleaved on tools/shape_sweep's ShapeBench (each checked against float64 first, C
NaN-poisoned).  Session 9 adds the peeled columns beside the interior: on a second stream (forked from
and joined to the timed stream by events, torch's wait_stream), launched before the interior
("side_first") or after it ("side_after"), and cuBLAS on the interior alone (what the edge costs it).  Writes peel_n.json under $OUT.  Not in the library: this
measures whether it would pay.

    python3 -m lab.experiments.peel_n [MxNxK ...]
"""
from . import check_and_time_interleaved, shapes_program

DEFAULT = ["255x257x65537", "1023x1025x1023", "8191x8193x1025"]


def one(torch, bench, m, n, k):
    import regtile
    a, b, c = bench.a, bench.b, bench.c
    cut = n // 64 * 64

    def whole(i):
        regtile.sgemm(a[i], b[i], c[i])

    def peeled(i):
        regtile.sgemm(a[i], b[i][:, :cut], c[i][:, :cut])
        regtile.sgemm(a[i], b[i][:, cut:], c[i][:, cut:])

    def interior(i):
        regtile.sgemm(a[i], b[i][:, :cut], c[i][:, :cut])

    def edge(i):
        regtile.sgemm(a[i], b[i][:, cut:], c[i][:, cut:])

    side = torch.cuda.Stream()

    def side_first(i):
        main = torch.cuda.current_stream()
        side.wait_stream(main)
        with torch.cuda.stream(side):
            edge(i)
        interior(i)
        main.wait_stream(side)

    def side_after(i):
        main = torch.cuda.current_stream()
        side.wait_stream(main)
        interior(i)
        with torch.cuda.stream(side):
            edge(i)
        main.wait_stream(side)

    c_cut = [torch.empty(m, cut, device="cuda") for _ in range(bench.sets)]  # torch.mm wants a dense out

    def cublas_interior(i):
        torch.mm(a[i], b[i][:, :cut], out=c_cut[i])

    fns = {"cublas": bench.cublas(), "cublas_interior": cublas_interior, "library": whole, "peeled": peeled,
           "interior": interior, "edge": edge, "side_first": side_first, "side_after": side_after}
    check, u = check_and_time_interleaved(torch, bench, fns, ("library", "peeled", "side_first", "side_after"))
    row = {"m": m, "n": n, "k": k, "cut": cut, "check": check, "us": u}
    return row, (f"cuBLAS {u['cublas']:.1f}  library {u['library']:.1f} (x{u['cublas'] / u['library']:.3f})  "
                 f"peeled at {cut} {u['peeled']:.1f} (x{u['cublas'] / u['peeled']:.3f}; interior "
                 f"{u['interior']:.1f}, edge {u['edge']:.1f}); side stream first {u['side_first']:.1f} "
                 f"(x{u['cublas'] / u['side_first']:.3f}), after {u['side_after']:.1f} "
                 f"(x{u['cublas'] / u['side_after']:.3f}); cuBLAS on the interior alone "
                 f"{u['cublas_interior']:.1f}  ok "
                 f"{'/'.join(str(check[v]['ok']) for v in ('library', 'peeled', 'side_first', 'side_after'))}")


main = shapes_program(__name__, DEFAULT, "peel_n.json", one)

if __name__ == "__main__":
    import sys
    sys.exit(main())
