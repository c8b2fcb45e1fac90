"""A streaming kernel for skinny m (9-32) with B stored k x n (issue 20, session 22): a prototype,
timed against regtile.sgemm's plan (the skinny members) and cuBLAS.

Row-major C (m x n) = A (m x k) B (k x n) with m small is B streamed once, each element used m
times.  The skinny members tile it as a GEMM (16 or 32 rows a block tile, stream-K over K, shared
memory for both operands, one k-tile of register prefetch): 16x4096x4096 at 69% of copy, 32x4096x4096
at 59% (session 21).  This kernel keeps only A in shared memory:
- a block owns a strip of 4 L columns (L lanes a row, a float4 each) and a K range (gridDim.y splits);
  its W warps hold 32 / L rows each, U rows a lane a step, so a step is RS = W x (32 / L) x U rows;
- each lane reads its rows of B straight into registers (float4 loads, the next step's issued
  before this step's FFMAs when PIPE) and keeps V x 4 sums (V: m rounded up to 4);
- A's V x RS chunk of the step is staged transposed in shared memory (As[p][v], a row of V
  floats read as V / 4 broadcast LDS.128), double-buffered, one barrier a step;
- the block's sums meet in the warp (xor shuffles over the row groups) and in shared memory (over
  the warps); one split writes C, more write partials that a reduce kernel sums in split order.

Variants are NAME:V=..,L=..,W=..,U=..,PIPE=..,MINB=..,S=..,AC=..,H=.. (S: splits, 0 = enough blocks to fill the
SMs' slots once; AC: A staged AC steps at a time, one barrier a chunk; H: the 32 / L lane groups of a warp split
into H vector groups, V rounded up to whole float4s a group).  Needs B's rows 16-byte aligned
(n % 4 == 0) and A's (k % 4 == 0).

What it measured on the H100 (docs/data/session22/a_proto; us, 16x4096x4096 unless named; the skinny member
regtile.sgemm ran then: 32.8):
- run 1 (3d47b5f, the reduce a plain launch): 16 lanes a row, 8 warps, 4 rows in flight, two blocks an SM
  ("l16w8") 30.6 - the best; 8 or 32 lanes 33.8 / 37.8, 2 rows in flight 37.2, no pipelining 37.9.  32 vectors
  (200-255 registers, one block an SM) were slower than skinny-m32 everywhere (32x4096x4096 44.8 against 38.4).
- run 2 (the reduce a programmatic launch, as the library's): l16w8 28.8; 16x16384x4096 94.2 against 99.8.
- run 3: splits - 4 (256 blocks, two an SM) 29.3, 2 (one an SM) 37.1, 8 31.5; 4 vectors 27.1 against the
  few-vector kernel's 24.3, so the gap to the copy is in the stream itself, not in the FMAs.
- run 4: B through a cp.async ring in shared memory (each lane its own float4s, 3-8 stages; that code was dropped
  after the run and is not in this file): slower on every shape (16x4096x4096 33.1-38.2 against 29.2).
- run 5: A staged AC = 4 / 8 / 16 steps at a time (a barrier a chunk): 29.5 / 30.7 / 36.9 against 28.5 at 1.
- run 6: splits per shape - one wave of blocks was best (16x5120x5120 3 splits 42.2 against 51.0 at 12).
- session 23, l16w8 beside the library's kernel in one call (docs/data/session23/a_13deb7f): 16x4096x4096 28.7
  against 30.0, 16x16384x4096 93.9 / 97.5, 16x2048x2048 11.7 / 12.6, 12x8192x3072 40.1 / 40.8 (16x5120x5120
  49.9 / 44.9: this file's 12 splits).  Under Nsight Compute (c_14cac04) the library's main kernel ran 30.8-31.6
  us to this one's 30.1 and executed 15.3 M instructions (629 K branches) to its 13.9 M (270 K); reading the
  vectors in place instead of the stage launch did not close it (b_04ebb84); grouping the row loads under one
  alignment test a step took 1-3% (d_14841a0; codegen/emit_fewvec._ts_rows).
- session 25, H (a warp's lane groups split over the vectors: H groups of V / H vectors on the same k rows, for
  17-64 vectors at 32-64 sums a thread; docs/data/session25/a_9326c68): every variant slower than the plan's GEMM
  member - 32x4096x4096 43.5 at best (L=16, H=2, 128 registers) against 38.7, 32x1024x131072 300.5 / 225.0,
  48x2048x8192 74.7 / 54.9, 64x4096x4096 90.3 / 54.8.
The library's kernel (FewVecTConfig.smem_vectors, codegen/emit_fewvec.py) is this one with the vectors staged
by the few-vector stage kernel (any layout of A) and read from that copy.

    python3 -m lab.experiments.stream_t_proto [dry=1] [variants="a:L=8,W=8;b:L=16"] [MxNxK ...]
"""
from lab.experiments import over_shapes, program, split_head, split_source, take_option, time_split_kernels

SOURCE = r"""
#define V {V}
#define VP ({V} + 4)
#define L {L}
#define W {W}
#define U {U}
#define AC {AC}
#define H {H}
#define VH (V / H)
#define R (32 / L / H)
#define RS (W * R * U)
#define CH (AC * RS)
#define THREADS (W * 32)
#define AF (V * RS / 4)
#define AF_T ((AF + THREADS - 1) / THREADS)

// Dynamic shared memory: A's chunks, As[2][CH][VP] (CH = AC steps of RS rows), later the warps' sums.
{HEAD}
{{
    extern __shared__ __align__(16) float sm[];
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int g = lane / L, cl = lane % L;
    const int gv = g % H, gr = g / H;  // the lane's vector group and row group
    const int col = blockIdx.x * (4 * L) + 4 * cl;
    const bool colok = col < N;
    const int k0 = blockIdx.y * kchunk;
    const int k1 = min(K, k0 + kchunk);
    float acc[VH][4];
#pragma unroll
    for (int v = 0; v < VH; ++v)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[v][c] = 0.f;
    const float* bp = B + (size_t)(colok ? col : 0);
    float4 an[AF_T];
    // slice `sl` of the chunk at rows cb.. (AF float4s of its V x CH): float4 F = sl AF + t THREADS + tid
    // is A[v, cb + 4 (F / V) ..], v = F % V
#define LOAD_A(cb, sl) \
    _Pragma("unroll") for (int t = 0; t < AF_T; ++t) {{ \
        const int f = (sl) * AF + t * THREADS + tid; \
        const int v = f % V, p = (cb) + 4 * (f / V); \
        float4 x = make_float4(0.f, 0.f, 0.f, 0.f); \
        if ((AF % THREADS == 0 || t * THREADS + tid < AF) && v < M) {{ \
            const float* ap = A + (size_t)v * lda + p; \
            if (p + 3 < k1) x = __ldg(reinterpret_cast<const float4*>(ap)); \
            else {{ if (p < k1) x.x = ap[0]; if (p + 1 < k1) x.y = ap[1]; if (p + 2 < k1) x.z = ap[2]; }} \
        }} \
        an[t] = x; \
    }}
#define STORE_A(bf, sl) \
    _Pragma("unroll") for (int t = 0; t < AF_T; ++t) {{ \
        const int f = (sl) * AF + t * THREADS + tid; \
        if (AF % THREADS == 0 || t * THREADS + tid < AF) {{ \
            float* d = sm + (bf) * CH * VP + (4 * (f / V)) * VP + f % V; \
            d[0] = an[t].x; d[VP] = an[t].y; d[2 * VP] = an[t].z; d[3 * VP] = an[t].w; \
        }} \
    }}
#define LOAD_B(dst, base) \
    _Pragma("unroll") for (int j = 0; j < U; ++j) {{ \
        const int p = (base) + j * (W * R) + w * R + gr; \
        dst[j] = (colok && p < k1) ? __ldcs(reinterpret_cast<const float4*>(bp + (size_t)p * ldb)) \
                                   : make_float4(0.f, 0.f, 0.f, 0.f); \
    }}
    float4 b[U];
#if {PIPE}
    float4 bn[U];
    LOAD_B(bn, k0)
#endif
#pragma unroll 1
    for (int sl = 0; sl < AC; ++sl) {{
        LOAD_A(k0, sl)
        STORE_A(0, sl)
    }}
    __syncthreads();
    int bf = 0;
#pragma unroll 1
    for (int cb = k0; cb < k1; cb += CH) {{
        const int nb = cb + CH;
        const bool more = nb < k1;
        const float* as = sm + bf * CH * VP;
#pragma unroll 1
        for (int sl = 0; sl < AC; ++sl) {{
            const int base = cb + sl * RS;
            if (base >= k1) break;
#if {PIPE}
#pragma unroll
            for (int j = 0; j < U; ++j) b[j] = bn[j];
            if (base + RS < k1) {{ LOAD_B(bn, base + RS) }}
#else
            LOAD_B(b, base)
#endif
            if (more) {{ LOAD_A(nb, sl) }}
#pragma unroll
            for (int j = 0; j < U; ++j) {{
                const float* ar = as + (sl * RS + j * (W * R) + w * R + gr) * VP + gv * VH;
#pragma unroll
                for (int q = 0; q < VH / 4; ++q) {{
                    const float4 a = *reinterpret_cast<const float4*>(ar + 4 * q);
                    const float av[4] = {{a.x, a.y, a.z, a.w}};
                    const float bv[4] = {{b[j].x, b[j].y, b[j].z, b[j].w}};
#pragma unroll
                    for (int t = 0; t < 4; ++t)
#pragma unroll
                        for (int c = 0; c < 4; ++c) acc[4 * q + t][c] = fmaf(av[t], bv[c], acc[4 * q + t][c]);
                }}
            }}
            if (more) {{ STORE_A(bf ^ 1, sl) }}
        }}
        __syncthreads();
        bf ^= 1;
    }}
    // the row groups of a warp meet by xor shuffles over the lane bits above cl
#pragma unroll
    for (int s = L * H; s < 32; s <<= 1)
#pragma unroll
        for (int v = 0; v < VH; ++v)
#pragma unroll
            for (int c = 0; c < 4; ++c) acc[v][c] += __shfl_xor_sync(0xffffffffu, acc[v][c], s);
    // then the warps, four vectors a round: red[w][t][4 L]
    const int split = blockIdx.y;
#pragma unroll
    for (int q = 0; q < VH / 4; ++q) {{
        if (gr == 0) {{
#pragma unroll
            for (int t = 0; t < 4; ++t)
                *reinterpret_cast<float4*>(sm + ((w * H + gv) * 4 + t) * 4 * L + 4 * cl) =
                    make_float4(acc[4 * q + t][0], acc[4 * q + t][1], acc[4 * q + t][2], acc[4 * q + t][3]);
        }}
        __syncthreads();
        for (int o = tid; o < 16 * L * H; o += THREADS) {{
            const int x = o / (4 * L), cc = o % (4 * L);  // x: the vector group's 4 x gv + t
            float s = 0.f;
#pragma unroll
            for (int ww = 0; ww < W; ++ww) s += sm[(ww * 4 * H + x) * 4 * L + cc];
            const int v = (x / 4) * VH + 4 * q + x % 4, n = blockIdx.x * 4 * L + cc;
            if (v < M && n < N) {{
                if (gridDim.y == 1) C[(size_t)v * ldc + n] = alpha * s + (beta != 0.f ? beta * C[(size_t)v * ldc + n] : 0.f);
                else Wk[((size_t)split * M + v) * N + n] = s;
            }}
        }}
        __syncthreads();
    }}
}}
"""

DEFAULT_SHAPES = ("16x4096x4096", "32x4096x4096", "32x1024x131072", "16x5120x5120", "24x4096x8192",
                  "16x16384x4096", "16x4096x16384")


def variant(spec: str, m: int) -> dict:
    name, _, body = spec.partition(":")
    v = dict(V=-(-m // 4) * 4, L=8, W=8, U=4, PIPE=1, MINB=1, S=0, AC=1, H=1)
    for part in filter(None, body.split(",")):
        key, _, value = part.partition("=")
        v[key] = int(value)
    v["name"] = name
    v["V"] = -(-v["V"] // (4 * v["H"])) * 4 * v["H"]  # whole float4s of vectors a vector group
    return v


def source(v: dict, tag: str):
    name = f"stream_t_{tag}"
    return split_source(name, SOURCE.format(HEAD=split_head(name, v["MINB"]),
                                            **{k: v[k] for k in ("V", "L", "W", "U", "PIPE", "AC", "H")}),
                        32 * v["W"], smem_bytes(v))


def smem_bytes(v: dict) -> int:
    """A's two chunks of AC x RS rows (V + 4 floats a row), or the warps' sums if more."""
    rs = v["W"] * (32 // v["L"] // v["H"]) * v["U"]
    return 4 * max(2 * v["AC"] * rs * (v["V"] + 4), v["W"] * 16 * v["L"] * v["H"])


def splits_for(v: dict, n: int, k: int, blocks_per_sm: int, sms: int = 132) -> int:
    """v's S, or the fewest splits (each a whole number of steps) whose blocks fill the SMs' slots."""
    rs = v["W"] * (32 // v["L"] // v["H"]) * v["U"]
    strips = -(-n // (4 * v["L"]))
    if v["S"]:
        return v["S"]
    slots = sms * blocks_per_sm
    best, best_fill = 1, 0.0
    for s in range(1, 65):
        if k // s < 2 * rs:
            break
        blocks = strips * s
        fill = blocks / (-(-blocks // slots) * slots)
        if fill > best_fill + 0.02:
            best, best_fill = s, fill
        if fill >= 0.95:
            break
    return best


def dry(specs, shapes):
    from regtile.runtime.compiler import compile_source
    for shape in shapes:
        m = int(shape.split("x")[0])
        for spec in specs_for(specs, m):
            v = variant(spec, m)
            art = compile_source(source(v, f"{v['name']}_{m}"), "sm_90")
            r = art.resources
            print(f"{shape} {spec}: {r}", flush=True)


DEFAULT_VARIANTS = {  # by m <= 16 / above: registers (dry=1: no spills; 32 vectors take 200-255)
    16: ("l16w8:L=16,W=8,U=4,MINB=2", "l16w8u8:L=16,W=8,U=8,MINB=1", "l16w16:L=16,W=16,U=4,MINB=1",
         "l8w8u8:L=8,W=8,U=8,MINB=1", "l8w16:L=8,W=16,U=4,MINB=1,S=1", "l16w4u8:L=16,W=4,U=8,MINB=2",
         "l32w4:L=32,W=4,U=4,MINB=2", "l16w8u6:L=16,W=8,U=6,MINB=1"),
    32: ("l16w8:L=16,W=8,U=4,MINB=1",),
}


def run(argv):
    given = take_option(argv, "variants")
    specs = [s for s in given.split(";") if s] if given else None
    if take_option(argv, "dry") == "1":
        dry(specs, argv or DEFAULT_SHAPES)
        return
    over_shapes(argv, DEFAULT_SHAPES, "stream_t_proto.json", lambda *a: one(specs, *a))


def specs_for(specs, m: int):
    return specs or DEFAULT_VARIANTS[16 if m <= 16 else 32]


def one(specs, torch, bench, m, n, k):
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_source
    dev = driver.device()
    kernels = {}
    for spec in specs_for(specs, m):
        v = variant(spec, m)
        kern = driver.load(compile_source(source(v, f"{v['name']}_{m}"), dev.arch))
        s = splits_for(v, n, k, kern.blocks_per_sm, dev.sm_count)
        chunk = v["W"] * (32 // v["L"] // v["H"]) * v["U"] * v["AC"]  # a split: whole chunks of A
        kchunk = -(-(-(-k // s)) // chunk) * chunk
        kernels[v["name"]] = (kern, -(-n // (4 * v["L"])), -(-k // kchunk), kchunk, dict(spec=spec))
    return time_split_kernels(torch, bench, m, n, k, kernels)


main = program(run, "dry=1, variants=NAME:V=..,L=..;NAME:..., then MxNxK shapes")

if __name__ == "__main__":
    raise SystemExit(main())
