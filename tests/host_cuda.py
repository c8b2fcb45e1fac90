"""Run generated CUDA C modules on the CPU, for tests without a GPU.

A module's text (codegen's KernelSource) is compiled by the host C++ compiler under a shim of the
CUDA it uses (tests/host_cuda.SHIM): a block's threads are OS threads, __syncthreads and the warps
of __shfl_xor_sync are barriers that exited threads leave, __shared__ variables are function
statics (blocks run one after another, so each block has them to itself), the cached loads are
plain loads (a float4 one from an address not 16-byte aligned traps, as the GPU faults) and atomics are the compiler's; dynamic shared memory is one static buffer.  Clusters (inline PTX) and anything under
`#if __CUDA_ARCH__` are not compiled.  Each kernel gets an extern "C" entry taking the grid, the
block and kernelParams (an array of pointers to the arguments, as cuLaunchKernel takes them), so
driver.PackedLaunch's packed launches run here unchanged: `host_driver` stands in for the driver's
launcher and device memory (host memory, its address as the pointer).

Slow (a thread per CUDA thread): meant for grids of tens of blocks."""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Dict

import numpy as np

CXX = shutil.which("g++") or shutil.which("c++")

SHIM = r"""
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
struct float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return float4{a, b, c, d}; }
template <class T> static inline T __ldg(const T* p) { return *p; }
template <class T> static inline T __ldcs(const T* p) { return *p; }
template <class T> static inline T __ldcg(const T* p) { return *p; }
// A float4 load from an address not 16-byte aligned faults on the GPU (misaligned address): here it says so and
// aborts (the test's process ends; the message names the address).
static inline float4 aligned4(const float4* p) {
    if (reinterpret_cast<size_t>(p) % 16) {
        std::fprintf(stderr, "host_cuda: misaligned float4 load at %p (the GPU faults here)\n", (const void*)p);
        std::abort();
    }
    return *p;
}
static inline float4 __ldg(const float4* p) { return aligned4(p); }
static inline float4 __ldcs(const float4* p) { return aligned4(p); }
static inline float4 __ldcg(const float4* p) { return aligned4(p); }
struct dim3_ { unsigned x, y, z; };
static dim3_ blockIdx, gridDim, blockDim;  // one block at a time
static thread_local dim3_ threadIdx;
using std::min;
using std::max;
#define __global__
#define __device__
#define __noinline__
#define __forceinline__
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

// A barrier of `expected` threads that a thread leaves when it exits (CUDA counts exited threads
// as arrived).
struct HostBarrier {
    std::mutex m;
    std::condition_variable cv;
    int expected = 0, arrived = 0;
    unsigned gen = 0;
    void reset(int n) { expected = n; arrived = 0; }
    void release() { arrived = 0; ++gen; cv.notify_all(); }
    void wait() {
        std::unique_lock<std::mutex> l(m);
        unsigned g = gen;
        if (++arrived >= expected) release();
        else cv.wait(l, [&] { return gen != g; });
    }
    void leave() {
        std::unique_lock<std::mutex> l(m);
        --expected;
        if (arrived > 0 && arrived >= expected) release();
    }
};
alignas(16) static float host_dynamic_smem[232448 / 4];  // the block's dynamic shared memory (227 KB)
static HostBarrier block_barrier;
static HostBarrier warp_barrier[32];
static float shuffle_lane[32][32];

static inline int host_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
static inline void __syncthreads() { block_barrier.wait(); }
static inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline float __shfl_xor_sync(unsigned, float v, int lane_mask) {
    const int t = host_thread(), w = t / 32, l = t % 32;
    shuffle_lane[w][l] = v;
    warp_barrier[w].wait();
    const float r = shuffle_lane[w][l ^ lane_mask];
    warp_barrier[w].wait();
    return r;
}

static void host_launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        const std::function<void()>& body) {
    const unsigned threads = bx * by * bz;
    gridDim = dim3_{gx, gy, gz};
    blockDim = dim3_{bx, by, bz};
    for (unsigned z = 0; z < gz; ++z)
        for (unsigned y = 0; y < gy; ++y)
            for (unsigned x = 0; x < gx; ++x) {
                blockIdx = dim3_{x, y, z};
                block_barrier.reset(threads);
                for (unsigned w = 0; w < (threads + 31) / 32; ++w)
                    warp_barrier[w].reset(std::min(32u, threads - 32 * w));
                std::vector<std::thread> pool;
                for (unsigned t = 0; t < threads; ++t)
                    pool.emplace_back([&, t] {
                        threadIdx = dim3_{t % bx, (t / bx) % by, t / (bx * by)};
                        body();
                        block_barrier.leave();
                        warp_barrier[t / 32].leave();
                    });
                for (auto& th : pool) th.join();
            }
}
"""
_ARG = {"int": "int", "float": "float", "long long": "long long"}


def _entry(src) -> str:
    """extern "C" host_NAME(grid, block, kernelParams): the kernel over the grid, its arguments
    read from kernelParams as the driver would."""
    args = []
    for i, (_, ctype) in enumerate(src.params):
        ctype = ctype.strip()
        args.append(f"*({ctype} const*)a[{i}]" if "*" in ctype else f"*({_ARG[ctype]}*)a[{i}]")
    return (f'extern "C" void host_{src.name}(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, '
            f"unsigned bz, void** a) {{\n    host_launch(gx, gy, gz, bx, by, bz, [&] {{ {src.name}({', '.join(args)}); }});\n}}\n")


class HostModule:
    """A compiled module: `kernels` maps each kernel's name to a LoadedKernel stand-in whose
    `function` is the id the fake launcher dispatches on."""

    _next_id = 1000

    def __init__(self, source, workdir: Path):
        if CXX is None:
            raise RuntimeError("no host C++ compiler")
        kernels = [src for _, src in source.kernels()]
        cpp = workdir / f"{source.name}.cpp"
        # dynamic shared memory (`extern __shared__ float smem[];`) is the shim's one buffer
        text = re.sub(r"extern __shared__ (?:__align__\(\d+\) )?float (\w+)\[\];",
                      r"float* const \1 = host_dynamic_smem;", source.text)
        cpp.write_text(SHIM + text + "\n" + "".join(_entry(k) for k in kernels))
        lib = workdir / f"{source.name}.so"
        done = subprocess.run([CXX, "-O1", "-std=c++17", "-pthread", "-shared", "-fPIC", "-w", "-o", str(lib),
                               str(cpp)], capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"host compile of {source.name} failed:\n{done.stderr[-3000:]}")
        self.lib = ctypes.CDLL(str(lib))
        self.entries: Dict[int, object] = {}
        self.kernels = {}
        for k in kernels:
            fn = getattr(self.lib, f"host_{k.name}")
            fn.argtypes = [ctypes.c_uint] * 6 + [ctypes.c_void_p]
            HostModule._next_id += 1
            self.entries[HostModule._next_id] = fn
            self.kernels[k.name] = SimpleNamespace(source=k, function=HostModule._next_id, label=k.name,
                                                   artifact=SimpleNamespace(arch="sm_90"),
                                                   describe_launch=lambda grid, k=k: f"{k.name} grid {grid}")
        main = self.kernels[source.name]
        main.entries = {role: self.kernels[src.name] for role, src in source.entries}
        for role, kernel in main.entries.items():
            setattr(main, role, kernel)
        self.main = main


class HostMemory:
    """Device-buffer stand-ins: host arrays kept alive, `ptr` their address."""

    def __init__(self):
        self.arrays = []

    def buffer(self, nbytes: int, fill: float = np.nan):
        arr = np.full(max(1, -(-nbytes // 4)), fill, dtype=np.float32)
        self.arrays.append(arr)
        return SimpleNamespace(ptr=arr.ctypes.data, nbytes=nbytes, close=lambda: None)

    def zeros_u32(self, count: int):
        arr = np.zeros(max(1, count), dtype=np.uint32)
        self.arrays.append(arr)
        return SimpleNamespace(ptr=arr.ctypes.data, nbytes=4 * count, close=lambda: None)


def host_driver(monkeypatch, *modules: HostModule) -> HostMemory:
    """driver's launcher, buffers and capture checks on the host, for the kernels of `modules`:
    plans built on their stand-in kernels launch them here."""
    from contextlib import contextmanager

    from regtile.runtime import driver
    entries = {}
    for mod in modules:
        entries.update(mod.entries)

    def launch(func, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        entries[int(func)](gx, gy, gz, bx, by, bz, ctypes.cast(params, ctypes.c_void_p))
        return 0

    @contextmanager
    def outside(stream):
        yield False
    mem = HostMemory()
    monkeypatch.setattr(driver, "_raw_launch", launch)
    monkeypatch.setattr(driver, "PROGRAMMATIC", False)
    monkeypatch.setattr(driver, "DeviceBuffer", lambda nbytes: mem.buffer(nbytes))
    monkeypatch.setattr(driver, "zeros_u32", mem.zeros_u32)
    monkeypatch.setattr(driver, "outside_capture", outside)
    monkeypatch.setattr(driver, "stream_capturing", lambda stream: False)
    return mem
