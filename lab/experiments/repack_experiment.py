"""Prototype: repack misaligned A/B (ld % 4 != 0) into 16-byte-aligned rows with cuMemcpy2DAsync,
then the edge-split best kernel on the copies."""
import sys

from . import best_config, cublas_ms, load_ptx, program, save, time_kernel


def _run(argv):
    """The experiment as it ran on the device (imports inside: --help needs no GPU)."""
    from cuda.bindings import driver as cu
    from regtile.runtime import bench, driver
    from regtile.runtime.sgemm_launch import SgemmLaunch, workspace_bytes
    kern = load_ptx(best_config(stream_k=True, edge_split=True))

    def copy2d(dst, dpitch, src, spitch, width, height, stream):
        p = cu.CUDA_MEMCPY2D()
        p.srcMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
        p.srcDevice = src
        p.srcPitch = spitch
        p.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
        p.dstDevice = dst
        p.dstPitch = dpitch
        p.WidthInBytes = width
        p.Height = height
        err, = cu.cuMemcpy2DAsync(p, stream)
        assert err == cu.CUresult.CUDA_SUCCESS, err

    out = {}
    for shape in [tuple(map(int, a.split("x"))) for a in argv] or [(4097, 4097, 4097)]:
        m, n, k = shape
        work = bench.GemmWorkload(m, n, k)
        lda2, ldb2 = -(-k // 4) * 4, -(-n // 4) * 4
        bufA = [driver.DeviceBuffer(4 * m * lda2) for _ in range(work.sets)]
        bufB = [driver.DeviceBuffer(4 * k * ldb2) for _ in range(work.sets)]
        try:
            ws = work.workspace(max(workspace_bytes(kern, m, n, k), 1))
            L = [SgemmLaunch(kern, m, n, k, 1.0, bufA[i].ptr, lda2, bufB[i].ptr, ldb2, 0.0, work.c[i].ptr, n, ws)
                 for i in range(work.sets)]
            def repack(i, s):
                copy2d(bufA[i].ptr, 4 * lda2, work.a[i].ptr, 4 * k, 4 * k, m, s)
                copy2d(bufB[i].ptr, 4 * ldb2, work.b[i].ptr, 4 * n, 4 * n, k, s)
            def both(i, s):
                repack(i, s); L[i](s)
            def copies(i, s):
                repack(i, s)
            for rnd in range(3):
                c_ms = cublas_ms(work)
                out.setdefault(f"{shape} cublas ms", []).append(c_ms)
                out.setdefault(f"{shape} edges x", []).append(c_ms / time_kernel(kern, work, rnd).ms)
                r1 = bench.check_and_time(both, work, 1.0, 0.0, 20, check=(rnd == 0))
                if rnd == 0:
                    print(shape, "repack ok" if r1.ok else f"WRONG {r1.rel_err}", flush=True)
                out.setdefault(f"{shape} repack+edges x", []).append(c_ms / r1.ms)
                r2 = bench.check_and_time(copies, work, 1.0, 0.0, 20, check=False)
                out.setdefault(f"{shape} copies ms", []).append(r2.ms)
        finally:
            for b in bufA + bufB:
                b.close()
            work.close()
    save(out, "repack_proto.json")


main = program(_run, "shapes MxNxK (default 4097x4097x4097)")

if __name__ == "__main__":
    sys.exit(main())
