"""How fast can an operand with unaligned rows be copied into rows padded to a multiple of 4 floats?  (Session 42:
repack_ab in NT / TT timed torch's strided copy, dst[:, :len].copy_(src), at about 2.65 TB/s read + written, and the
copies cost most of what the aligned kernel saves; the sweep's 1 GiB device copy runs at about 4.1 TB/s.)

Per operand shape ROWSxLEN (row-major, leading dimension LEN, not a multiple of 4) into a zeroed ROWSx(LEN rounded up
to 4, plus 4) buffer, each way timed as a batch of back-to-back copies between CUDA events over rotating sets
(twice the L2), median of 7 rounds, checked against torch's copy:
- "torch": torch's strided copy;
- "rows": a CUDA kernel (cupy.RawKernel), a block a row chunk, each thread reading 4 floats (scalar, L1-cached) and
  writing one aligned float4; the padding left as it is;
- "memcpy2d": cudaMemcpy2DAsync device to device (source pitch LEN * 4, destination pitch the padded row).
Prints GB/s (read + written) and us per copy; writes pack_copy_speed.json under $OUT.

    python3 -m lab.experiments.pack_copy_speed [ROWSxLEN ...]
"""
import statistics

from lab.experiments import program, write_out

DEFAULT = ["2049x1025", "2047x1025", "8191x1025", "8193x1025", "4001x4007", "4003x4007", "6143x3071", "2047x3071"]
ROUNDS = 7

KERNEL = r"""
extern "C" __global__ void pack_rows(const float* __restrict__ src, float* __restrict__ dst, int len, int lds,
                                     int ldd) {
    const int c = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (c >= len) return;
    const float* s = src + (long long)blockIdx.y * lds + c;
    float4 v;
    v.x = __ldg(s);
    v.y = c + 1 < len ? __ldg(s + 1) : 0.f;
    v.z = c + 2 < len ? __ldg(s + 2) : 0.f;
    v.w = c + 3 < len ? __ldg(s + 3) : 0.f;
    *reinterpret_cast<float4*>(dst + (long long)blockIdx.y * ldd + c) = v;
}
"""


def run(argv):
    import cupy
    import torch
    kern = cupy.RawKernel(KERNEL, "pack_rows")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows_out = []
    for spec in argv or DEFAULT:
        rows, length = (int(v) for v in spec.split("x"))
        ld = -(-length // 4) * 4 + 4
        nbytes = 4 * rows * length
        sets = max(2, -(-2 * l2 // (2 * nbytes)))
        src = [torch.randn(rows, length, device="cuda") for _ in range(sets)]
        dst = [torch.zeros(rows, ld, device="cuda") for _ in range(sets)]
        threads = 128
        grid = (-(-(-(-length // 4)) // threads), rows)

        def torch_copy(i):
            dst[i][:, :length].copy_(src[i])

        def rows_copy(i):
            kern(grid, (threads,), (src[i].data_ptr(), dst[i].data_ptr(), cupy.int32(length), cupy.int32(length),
                                    cupy.int32(ld)), stream=cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream))

        def memcpy2d(i):
            cupy.cuda.runtime.memcpy2DAsync(dst[i].data_ptr(), 4 * ld, src[i].data_ptr(), 4 * length, 4 * length,
                                            rows, cupy.cuda.runtime.memcpyDeviceToDevice,
                                            torch.cuda.current_stream().cuda_stream)

        ways = {"torch": torch_copy, "rows": rows_copy, "memcpy2d": memcpy2d}
        ok = {}
        for name, fn in ways.items():
            for d in dst:
                d.zero_()
            fn(0)
            torch.cuda.synchronize()
            ok[name] = bool(torch.equal(dst[0][:, :length], src[0])) and bool((dst[0][:, length:] == 0).all())
        times = {name: [] for name in ways}
        batch = 20
        for r in range(ROUNDS):
            for name, fn in ways.items():
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda._sleep(int(batch * 30e-6 * 1.98e9))
                e0.record()
                for j in range(batch):
                    fn((r + j) % sets)
                e1.record()
                e1.synchronize()
                times[name].append(1e3 * e0.elapsed_time(e1) / batch)
        us = {name: round(statistics.median(t), 2) for name, t in times.items()}
        gbs = {name: round(2 * nbytes / (u * 1e3), 1) for name, u in us.items()}
        rows_out.append({"rows": rows, "len": length, "ld": ld, "us": us, "gbs": gbs, "ok": ok})
        print(f"{spec} -> ld {ld}: " + "  ".join(f"{name} {us[name]:.1f} us ({gbs[name]:.0f} GB/s{'' if ok[name] else ', WRONG'})"
                                                 for name in ways), flush=True)
        src = dst = None  # free the sets before the next shape
    write_out("pack_copy_speed.json", {"rows": rows_out})


main = program(run, "[ROWSxLEN ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
