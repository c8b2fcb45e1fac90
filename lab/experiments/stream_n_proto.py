"""Skinny n (9-16) with A stored m x k, the vectors through shared memory (issue 20, session 22): a prototype,
written in session 22 and timed in session 23 against regtile.sgemm's plan (the few-vector op N kernel) and
cuBLAS - slower than the plan on every shape, so nothing of it went into the library.

Row-major C (m x n) = A (m x k) B (k x n) with n small is A streamed once, each element used n times.  The
few-vector op N kernel (FewVecNConfig) runs its lanes along a row of A and reads the n vectors (B's columns,
staged k-contiguous) from L1, one LDG.128 a vector for every float4 of A it holds: 2048x16x32768 at 83.5% of
copy, 4096x16x4096 at 67% (session 22's sweep).  This kernel, as the op T one of session 22
(FewVecTConfig.smem_vectors), moves the vectors through shared memory:
- a block is W warps over W x R rows of A (a warp holds R rows, its 32 lanes along them, a float4 each)
  and a K range (gridDim.y splits); a step is 128 U columns of k: a lane's U float4s of each of its R rows,
  the next step's loaded before this step's FMAs;
- B's rows of the step (128 U x V floats, contiguous in B) are staged transposed, Xs[v][p] (vector-major, a
  row of 128 U + 4 floats), double-buffered, one barrier a step; lane l reads Xs[v][4 l + 128 u ..] as an
  LDS.128 - consecutive lanes, consecutive 16 bytes: no bank conflict, one LDS.128 a vector serving R rows;
- a lane keeps R x V sums; the 32 lanes of a row meet by xor shuffles, lane 0 writes C (one split) or the
  split's partial (a reduce kernel sums the splits in order, a programmatic launch).
What it measured on the H100 (session 23, docs/data/session23/a_13deb7f; us, the plan / the best variant):
2048x16x32768 109.9 / 114.7 (w8r3), 4096x16x4096 33.8 / 41.9 (w8r4m1), 8192x16x8192 109.0 / 147.2 (w8r4m1),
65536x16x1024 109.8 / 147.6 (w8r3), 4096x12x8192 52.3 / 55.7 (w8r4m1).  With 32 vectors (w8r2, w4r2m2, w8r2u2,
w4r3: 166-248 registers, one or two blocks an SM) it reached 420-640 GB/s against fused-128x32-f1's 2180-2220
(32768x32x4096, 16384x32x16384).  Not profiled.
Variants are NAME:V=..,W=..,R=..,U=..,MINB=..,S=.. (S: splits, 0 = enough blocks to fill the SMs' slots
once).  Needs A's rows and B's rows 16-byte aligned (k % 4 == 0, n % 4 == 0).

    python3 -m lab.experiments.stream_n_proto [dry=1] [variants="a:W=8,R=3;b:R=2,U=2"] [MxNxK ...]

dry=1 builds each variant for sm_90 here and prints its registers and spills (no GPU).
"""
from lab.experiments import over_shapes, program, split_head, split_source, take_option, time_split_kernels

SOURCE = r"""
#define V {V}
#define W {W}
#define R {R}
#define U {U}
#define KC (128 * U)
#define XP (KC + 4)
#define THREADS (W * 32)
#define BF (KC * V / 4)
#define BF_T ((BF + THREADS - 1) / THREADS)

// Dynamic shared memory: B's rows of two steps transposed, Xs[2][V][XP].
{HEAD}
{{
    extern __shared__ __align__(16) float xs[];
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int row0 = (blockIdx.x * W + w) * R;
    const int k0 = blockIdx.y * kchunk;
    const int k1 = min(K, k0 + kchunk);
    float s[R][V];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int v = 0; v < V; ++v) s[r][v] = 0.f;
    const float* ap[R];
#pragma unroll
    for (int r = 0; r < R; ++r) ap[r] = A + (size_t)min(row0 + r, M - 1) * lda;
    float4 bn[BF_T];
    // B's float4 f of the step at base: row p = base + f % KC, vectors 4 (f / KC) .. + 3 (consecutive lanes,
    // consecutive rows: the transposed stores below are conflict-free)
#define LOAD_B(base) \
    _Pragma("unroll") for (int t = 0; t < BF_T; ++t) {{ \
        const int f = tid + t * THREADS; \
        const int p = (base) + f % KC, q = f / KC; \
        bn[t] = (f < BF && p < k1 && 4 * q < N) ? \
            __ldg(reinterpret_cast<const float4*>(B + (size_t)p * ldb + 4 * q)) : make_float4(0.f, 0.f, 0.f, 0.f); \
    }}
#define STORE_B(bf) \
    _Pragma("unroll") for (int t = 0; t < BF_T; ++t) {{ \
        const int f = tid + t * THREADS; \
        if (f < BF) {{ \
            float* d = xs + ((bf) * V + 4 * (f / KC)) * XP + f % KC; \
            d[0] = bn[t].x; d[XP] = bn[t].y; d[2 * XP] = bn[t].z; d[3 * XP] = bn[t].w; \
        }} \
    }}
#define LOAD_A(dst, base) \
    _Pragma("unroll") for (int u = 0; u < U; ++u) \
    _Pragma("unroll") for (int r = 0; r < R; ++r) {{ \
        const int p = (base) + 128 * u + 4 * lane; \
        dst[u][r] = (p < k1 && row0 + r < M) ? __ldcs(reinterpret_cast<const float4*>(ap[r] + p)) \
                                             : make_float4(0.f, 0.f, 0.f, 0.f); \
    }}
    float4 a[U][R], an[U][R];
    LOAD_B(k0)
    STORE_B(0)
    LOAD_A(an, k0)
    __syncthreads();
    int bf = 0;
#pragma unroll 1
    for (int base = k0; base < k1; base += KC) {{
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int r = 0; r < R; ++r) a[u][r] = an[u][r];
        const bool more = base + KC < k1;
        if (more) {{ LOAD_A(an, base + KC) LOAD_B(base + KC) }}
        const float* xb = xs + bf * V * XP + 4 * lane;
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int v = 0; v < V; ++v) {{
                const float4 x = *reinterpret_cast<const float4*>(xb + v * XP + 128 * u);
#pragma unroll
                for (int r = 0; r < R; ++r) {{
                    s[r][v] = fmaf(a[u][r].x, x.x, s[r][v]);
                    s[r][v] = fmaf(a[u][r].y, x.y, s[r][v]);
                    s[r][v] = fmaf(a[u][r].z, x.z, s[r][v]);
                    s[r][v] = fmaf(a[u][r].w, x.w, s[r][v]);
                }}
            }}
        if (more) {{ STORE_B(bf ^ 1) }}
        __syncthreads();
        bf ^= 1;
    }}
#pragma unroll
    for (int o = 16; o >= 1; o >>= 1)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int v = 0; v < V; ++v) s[r][v] += __shfl_xor_sync(0xffffffffu, s[r][v], o);
    // lane r * V + v (mod 32) stores output (row0 + r, v): the stores spread over the lanes
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int v = 0; v < V; ++v)
            if (lane == (r * V + v) % 32 && row0 + r < M && v < N) {{
                if (gridDim.y == 1) {{
                    float* cp = C + (size_t)(row0 + r) * ldc + v;
                    *cp = alpha * s[r][v] + (beta != 0.f ? beta * *cp : 0.f);
                }} else Wk[((size_t)blockIdx.y * M + row0 + r) * N + v] = s[r][v];
            }}
}}
"""

DEFAULT_SHAPES = ("2048x16x32768", "4096x16x4096", "8192x16x8192", "65536x16x1024", "4096x12x8192")
# spill-free for 16 vectors on sm_90 (dry=1): R = 4 at two 256-thread blocks an SM spilled 16 bytes
DEFAULT_VARIANTS = ("w8r3:W=8,R=3,U=1,MINB=2", "w8r2u2:W=8,R=2,U=2,MINB=2", "w4r4m3:W=4,R=4,U=1,MINB=3",
                    "w8r4m1:W=8,R=4,U=1,MINB=1", "w16r2:W=16,R=2,U=1,MINB=1", "w16r2u2:W=16,R=2,U=2,MINB=1")


def variant(spec: str, n: int) -> dict:
    name, _, body = spec.partition(":")
    v = dict(V=-(-n // 4) * 4, W=8, R=4, U=1, MINB=2, S=0)
    for part in filter(None, body.split(",")):
        key, _, value = part.partition("=")
        v[key] = int(value)
    v["name"] = name
    return v


def smem_bytes(v: dict) -> int:
    return 4 * 2 * v["V"] * (128 * v["U"] + 4)


def source(v: dict, tag: str):
    name = f"stream_n_{tag}"
    return split_source(name, SOURCE.format(HEAD=split_head(name, v["MINB"]), **{k: v[k] for k in ("V", "W", "R", "U")}),
                        32 * v["W"], smem_bytes(v))


def splits_for(v: dict, m: int, k: int, blocks_per_sm: int, sms: int = 132) -> int:
    """v's S, or one wave: as many splits as the slots hold beside the row blocks, each >= 2 steps."""
    if v["S"]:
        return v["S"]
    blocks = -(-m // (v["W"] * v["R"]))
    return max(1, min(k // (2 * 128 * v["U"]), sms * blocks_per_sm // blocks, 64))


def dry(specs, shapes):
    from regtile.runtime.compiler import compile_source
    for shape in shapes:
        n = int(shape.split("x")[1])
        for spec in specs:
            v = variant(spec, n)
            r = compile_source(source(v, f"{v['name']}_{n}"), "sm_90").resources
            print(f"{shape} {spec}: {r.registers} registers, {r.spill_store_bytes} B spilled, "
                  f"{smem_bytes(v)} B shared", flush=True)


def run(argv):
    given = take_option(argv, "variants")
    specs = [s for s in given.split(";") if s] if given else list(DEFAULT_VARIANTS)
    if take_option(argv, "dry") == "1":
        dry(specs, argv or DEFAULT_SHAPES)
        return
    over_shapes(argv, DEFAULT_SHAPES, "stream_n_proto.json", lambda *a: one(specs, *a))


def one(specs, torch, bench, m, n, k):
    from regtile.runtime import driver
    from regtile.runtime.compiler import compile_source
    dev = driver.device()
    kernels = {}
    for spec in specs:
        v = variant(spec, n)
        kern = driver.load(compile_source(source(v, f"{v['name']}_{n}"), dev.arch))
        s = splits_for(v, m, k, kern.blocks_per_sm, dev.sm_count)
        kchunk = -(-(-(-k // s)) // (128 * v["U"])) * 128 * v["U"]  # a split: whole steps
        kernels[v["name"]] = (kern, -(-m // (v["W"] * v["R"])), -(-k // kchunk), kchunk, dict(spec=spec))
    return time_split_kernels(torch, bench, m, n, k, kernels)


main = program(run, "dry=1, variants=NAME:V=..,W=..;NAME:..., then MxNxK shapes")

if __name__ == "__main__":
    raise SystemExit(main())
