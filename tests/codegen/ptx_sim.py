"""A small PTX interpreter for the subset the PTX backend emits (codegen/emit_ptx.py),
so its kernels can be checked on the CPU: results against float64, every global and
shared access inside its buffer and aligned, and no shared-memory race between two
barriers (a read or write of a word another thread wrote, or a write of a word
another thread read, in the same barrier interval).

Threads of a block run one after the other from barrier to barrier, which is a
valid schedule for a race-free kernel (the race check says whether it is one).
Slow (pure Python): meant for small grids.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np
from regtile.runtime.sass import split_operands

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
SMEM_BASE = 0x400


class SimError(AssertionError):
    pass


def _s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def _f32(x) -> float:
    return float(np.float32(x))


def _hexf(tok: str) -> float:
    return struct.unpack(">f", bytes.fromhex(tok[2:]))[0]


@dataclass
class Buffer:
    name: str
    base: int
    data: np.ndarray  # float32, flat

    def index(self, addr: int, width: int, what: str) -> int:
        off = addr - self.base
        if off % (4 * width) and width > 1 or off % 4:
            raise SimError(f"{what}: misaligned {4 * width}-byte access at {self.name}+{off}")
        i = off // 4
        if i < 0 or i + width > self.data.size:
            raise SimError(f"{what}: out of bounds: {self.name}[{i}..{i + width - 1}] of {self.data.size}")
        return i


def _split_operands(s: str) -> List[str]:
    return split_operands(s, "{[", "}]")


class Program:
    def __init__(self, ptx: str):
        m = re.search(r"\.entry\s+(\w+)\(\s*(.*?)\)", ptx, flags=re.S)
        self.name = m.group(1)
        self.params = [ln.split()[-1] for ln in m.group(2).split(",")]
        body = ptx[ptx.index("{", m.end()) + 1:ptx.rindex("}")]
        self.instrs: List[Tuple[str, bool, str, List[str]]] = []  # (pred, negated, opcode, operands)
        self.labels: Dict[str, int] = {}
        for raw in body.splitlines():
            line = raw.split("//")[0].strip()
            if not line or line.startswith(".reg"):
                continue
            if line.endswith(":"):
                self.labels[line[:-1]] = len(self.instrs)
                continue
            line = line.rstrip(";").strip()
            pred, neg = "", False
            if line.startswith("@"):
                p, line = line.split(None, 1)
                neg = p.startswith("@!")
                pred = p.lstrip("@!")
            parts = line.split(None, 1)
            ops = _split_operands(parts[1]) if len(parts) > 1 else []
            self.instrs.append((pred, neg, parts[0], ops))


class Thread:
    __slots__ = ("regs", "pc", "tid", "done", "open_group", "groups")

    def __init__(self, tid: int):
        self.regs: Dict[str, object] = {}
        self.pc = 0
        self.tid = tid
        self.done = False
        # cp.async: copies read at issue, written to shared memory only when a wait_group
        # retires their group (as late as the hardware may), so a wait that retires too
        # little leaves the stage stale (NaN first) and the race check sees the write where
        # it lands
        self.open_group: List[Tuple[int, List[float]]] = []
        self.groups: List[List[Tuple[int, List[float]]]] = []


class Sim:
    def __init__(self, ptx: str, smem_bytes: int):
        self.prog = Program(ptx)
        self.smem_bytes = smem_bytes
        self.executed = 0

    def run(self, grid, block, args: Dict[str, object], buffers: List[Buffer]):
        """args: param name suffix (M, N, K, alpha, A, lda, ...) -> value (pointers as
        addresses of `buffers`)."""
        self.buffers = buffers
        self.param_values = {}
        for pname in self.prog.params:
            key = pname.rsplit("_param_", 1)[1]
            self.param_values[pname] = args[key]
        for bz in range(grid[2] if len(grid) > 2 else 1):
            for by in range(grid[1]):
                for bx in range(grid[0]):
                    self._block((bx, by, bz), block[0])

    def _buffer(self, addr: int) -> Buffer:
        for b in self.buffers:
            if b.base <= addr < b.base + 4 * b.data.size:
                return b
        raise SimError(f"global access at {addr:#x} outside every buffer")

    def _block(self, ctaid, nthreads: int):
        smem = np.full(self.smem_bytes // 4, np.nan, dtype=np.float32)
        self.smem = Buffer("smem", SMEM_BASE, smem)
        self.ctaid = ctaid
        threads = [Thread(t) for t in range(nthreads)]
        self.epoch = 0
        self.writer: Dict[int, Tuple[int, int]] = {}
        self.readers: Dict[int, Tuple[int, set]] = {}
        while True:
            states = [self._run_to_barrier(t) for t in threads]
            if all(s == "ret" for s in states):
                return
            if any(s == "ret" for s in states):
                raise SimError("some threads returned while others wait at a barrier")
            self.epoch += 1

    def _smem_access(self, tid: int, idx: int, width: int, write: bool):
        for i in range(idx, idx + width):
            w = self.writer.get(i)
            if w and w[0] == self.epoch and w[1] != tid:
                raise SimError(f"shared race: thread {tid} {'writes' if write else 'reads'} word {i} that thread "
                               f"{w[1]} wrote in the same barrier interval")
            if write:
                r = self.readers.get(i)
                if r and r[0] == self.epoch and (r[1] - {tid}):
                    raise SimError(f"shared race: thread {tid} writes word {i} that thread(s) {sorted(r[1] - {tid})[:4]} "
                                   f"read in the same barrier interval")
                self.writer[i] = (self.epoch, tid)
            else:
                r = self.readers.get(i)
                if not r or r[0] != self.epoch:
                    self.readers[i] = (self.epoch, {tid})
                else:
                    r[1].add(tid)

    def _val(self, th: Thread, tok: str):
        if tok.startswith("%"):
            if tok == "%tid.x":
                return th.tid
            if tok == "%ctaid.x":
                return self.ctaid[0]
            if tok == "%ctaid.y":
                return self.ctaid[1]
            if tok == "%ctaid.z":
                return self.ctaid[2]
            if tok not in th.regs:
                raise SimError(f"thread {th.tid}: register {tok} read before written "
                               f"(instruction {th.pc}: {self.prog.instrs[th.pc]})")
            return th.regs[tok]
        if tok == "smem":
            return SMEM_BASE
        if tok.startswith("0f"):
            return _hexf(tok)
        if tok.startswith("!"):
            return not self._val(th, tok[1:])
        return int(tok, 0)

    def _addr(self, th: Thread, tok: str) -> int:
        inner = tok.strip("[]")
        m = re.fullmatch(r"(%\w+)([+-]\d+)?", inner)
        if m:
            return self._val(th, m.group(1)) + int(m.group(2) or 0)
        return inner  # a parameter name

    def _run_to_barrier(self, th: Thread) -> str:
        if th.done:
            return "ret"
        prog = self.prog
        regs = th.regs
        while True:
            pred, neg, op, ops = prog.instrs[th.pc]
            self.executed += 1
            if pred:
                if pred not in regs:
                    raise SimError(f"predicate {pred} read before written at {th.pc}")
                if bool(regs[pred]) == neg:
                    th.pc += 1
                    continue
            th.pc += 1
            parts = op.split(".")
            base = parts[0]
            if base == "bra":
                th.pc = prog.labels[ops[0]]
                continue
            if base == "ret":
                th.done = True
                return "ret"
            if base == "bar":
                return "bar"
            v = lambda i: self._val(th, ops[i])  # noqa: E731
            d = ops[0] if ops else None
            if base == "ld" or base == "st":
                self._mem(th, base, parts, ops)
                continue
            if base == "griddepcontrol":  # PDL: one grid at a time here, nothing to wait for
                continue
            if base == "cp":  # cp.async.{ca,cg}.shared.global, commit_group, wait_group
                self._cp_async(th, parts, ops)
                continue
            if base == "mov":
                regs[d] = v(1)
            elif base == "cvta":
                regs[d] = v(1)
            elif base == "cvt":  # cvt.s64.s32, cvt.u64.u32
                regs[d] = (_s32(v(1)) if parts[1] == "s64" else v(1) & M32) & M64
            elif base == "add" and parts[-1] == "f32":  # add.f32, add.rn.f32
                regs[d] = _f32(np.float32(v(1)) + np.float32(v(2)))
            elif base == "add":
                regs[d] = (v(1) + v(2)) & (M64 if parts[1].endswith("64") else M32)
            elif base == "sub":
                regs[d] = (v(1) - v(2)) & M32
            elif base == "mul":
                if parts[1] == "wide":
                    regs[d] = (_s32(v(1)) * _s32(v(2))) & M64
                elif parts[1] == "lo":
                    regs[d] = (v(1) * v(2)) & (M64 if parts[2].endswith("64") else M32)
                elif parts[1] == "f32":
                    regs[d] = _f32(np.float32(v(1)) * np.float32(v(2)))
                else:
                    raise SimError(f"unsupported {op}")
            elif base == "mad":  # mad.wide.s32
                regs[d] = (_s32(v(1)) * _s32(v(2)) + v(3)) & M64
            elif base == "shl":
                regs[d] = (v(1) << v(2)) & (M64 if parts[1] == "b64" else M32)
            elif base == "shr":  # shr.u32
                regs[d] = (v(1) & M32) >> v(2)
            elif base == "and":
                if parts[1] == "pred":
                    regs[d] = bool(v(1)) and bool(v(2))
                else:
                    regs[d] = v(1) & v(2)
            elif base == "or":
                regs[d] = (bool(v(1)) or bool(v(2))) if parts[1] == "pred" else v(1) | v(2)
            elif base == "min":  # min.s32
                if parts[1] != "s32":
                    raise SimError(f"unsupported {op}")
                regs[d] = min(_s32(v(1)), _s32(v(2))) & M32
            elif base == "xor":
                regs[d] = v(1) ^ v(2)
            elif base == "div":
                a, b = (v(1), v(2)) if parts[1] == "u32" else (_s32(v(1)), _s32(v(2)))
                if parts[1] == "s32" and (a < 0 or b <= 0):
                    raise SimError("div.s32 of a negative value")
                regs[d] = (a // b) & M32
            elif base == "rem":
                regs[d] = (v(1) % v(2)) & M32
            elif base == "setp":
                cmp, typ = parts[1], parts[-1]
                a, b = v(1), v(2)
                if typ == "s32":
                    a, b = _s32(a), _s32(b)
                r = {"eq": a == b, "ne": a != b, "neu": a != b, "lt": a < b, "le": a <= b,
                     "gt": a > b, "ge": a >= b}[cmp]
                if len(parts) == 4:  # setp.cmp.and.type
                    r = r and bool(v(3))
                regs[d] = r
            elif base == "not" and parts[1] == "pred":
                regs[d] = not v(1)
            elif base == "selp":
                regs[d] = v(1) if v(3) else v(2)
            elif base == "fma":
                regs[d] = _f32(float(v(1)) * float(v(2)) + float(v(3)))
            else:
                raise SimError(f"unsupported instruction {op}")

    def _cp_async(self, th: Thread, parts: List[str], ops: List[str]):
        what = f"thread {th.tid} block {self.ctaid} cp.{'.'.join(parts[1:])} (instruction {th.pc - 1})"
        if parts[2] == "commit_group":
            th.groups.append(th.open_group)
            th.open_group = []
            return
        if parts[2] == "wait_group":
            keep = self._val(th, ops[0])
            while len(th.groups) > keep:
                for i, vals in th.groups.pop(0):
                    self._smem_access(th.tid, i, len(vals), True)
                    self.smem.data[i:i + len(vals)] = vals
            return
        size = self._val(th, ops[2])
        nbytes = self._val(th, ops[3]) if len(ops) > 3 else size
        if size not in (4, 8, 16) or (parts[2] == "cg" and size != 16) or nbytes not in (0, size) and nbytes % 4:
            raise SimError(f"{what}: cp-size {size}, src-size {nbytes}")
        i = self.smem.index(self._addr(th, ops[0]), size // 4, what)
        vals = [0.0] * (size // 4)
        if nbytes:
            src = self._addr(th, ops[1])
            buf = self._buffer(src)
            j = buf.index(src, nbytes // 4, what)
            vals[:nbytes // 4] = [float(x) for x in buf.data[j:j + nbytes // 4]]
        th.open_group.append((i, vals))

    def _mem(self, th: Thread, base: str, parts: List[str], ops: List[str]):
        space = parts[1]
        width = int(parts[-2][1:]) if parts[-2].startswith("v") else 1
        if space == "param":
            name = ops[1].strip("[]")
            th.regs[ops[0]] = self.param_values[name]
            return
        if base == "ld":
            regs_tok, addr_tok = ops[0], ops[1]
        else:
            addr_tok, regs_tok = ops[0], ops[1]
        names = [x.strip() for x in regs_tok.strip("{}").split(",")]
        addr = self._addr(th, addr_tok)
        what = f"thread {th.tid} block {self.ctaid} {base}.{'.'.join(parts[1:])} (instruction {th.pc - 1})"
        if space == "shared":
            buf = self.smem
            i = buf.index(addr, width, what)
            self._smem_access(th.tid, i, width, base == "st")
        else:
            buf = self._buffer(addr)
            i = buf.index(addr, width, what)
        if base == "ld":
            for e, n in enumerate(names):
                th.regs[n] = float(buf.data[i + e])
        else:
            for e, n in enumerate(names):
                buf.data[i + e] = np.float32(self._val(th, n))


def run_sgemm(src, m: int, n: int, k: int, alpha: float, beta: float, lda=None, ldb=None, ldc=None,
              misalign: Tuple[int, int, int] = (0, 0, 0), seed: int = 0, trans_a: bool = False,
              trans_b: bool = False, batch: int = 0, strides: Tuple[int, int, int] = None):
    """Run an SGEMM KernelSource (language "ptx") on random data; returns
    (C, reference float64, C before, executed instructions).  C starts as NaN where
    beta == 0 (so unwritten elements show) and random otherwise; `misalign` shifts
    A, B, C by that many floats (unaligned rows for the float4 paths).

    trans_a: A stored K x M (lda >= M), op(A) = A^T; trans_b: B stored N x K.  batch > 0:
    a batched kernel on `batch` matrices, `strides` (floats; 0 broadcasts, default one
    matrix each); C and the reference then have a leading batch dimension."""
    rng = np.random.default_rng(seed)
    a_rows, a_cols = (k, m) if trans_a else (m, k)
    b_rows, b_cols = (n, k) if trans_b else (k, n)
    lda, ldb, ldc = lda or a_cols, ldb or b_cols, ldc or n
    nb = max(batch, 1)
    # each matrix ends at its last element: (rows - 1) * ld + cols floats, as cuBLAS lets a caller allocate
    sizes = ((a_rows - 1) * lda + a_cols, (b_rows - 1) * ldb + b_cols, (m - 1) * ldc + n)
    strides = strides if strides is not None else sizes
    lens = [(nb - 1) * st + sz for st, sz in zip(strides, sizes)]
    a = rng.standard_normal(lens[0]).astype(np.float32)
    b = rng.standard_normal(lens[1]).astype(np.float32)
    c0 = rng.standard_normal(lens[2]).astype(np.float32) if beta != 0 else np.full(lens[2], np.nan, np.float32)
    bufs = []
    for name, arr, base, mis in (("A", a, 0x10000000, misalign[0]), ("B", b, 0x20000000, misalign[1]),
                                 ("C", c0.copy(), 0x30000000, misalign[2])):
        # the buffer holds exactly the matrices: any access past it is out of bounds
        bufs.append(Buffer(name, base + 4 * mis, arr.copy()))
    sim = Sim(src.text, src.geometry.dynamic_smem_bytes)
    kn = src.geometry.columns(n)  # the kernel's N: one less where C's last column is its own (config.last_col)
    args = {"M": m, "N": kn, "K": k, "alpha": alpha, "beta": beta, "lda": lda, "ldb": ldb, "ldc": ldc,
            "A": bufs[0].base, "B": bufs[1].base, "C": bufs[2].base}
    if batch:
        args.update(stride_a=strides[0], stride_b=strides[1], stride_c=strides[2])
        grid = src.geometry.grid(m, kn, batch)
    else:
        grid = src.geometry.grid(m, kn)
    sim.run(grid, src.geometry.block, args, bufs)

    def mat(flat, z, stride, rows, ld):
        part = flat[z * stride: z * stride + rows * ld]
        return np.concatenate([part, np.full(rows * ld - part.size, np.nan, np.float32)]).reshape(rows, ld)

    cs, refs, c0s = [], [], []
    for z in range(nb):
        az = mat(a, z, strides[0], a_rows, lda)[:, :a_cols].astype(np.float64)
        bz = mat(b, z, strides[1], b_rows, ldb)[:, :b_cols].astype(np.float64)
        opa, opb = (az.T if trans_a else az), (bz.T if trans_b else bz)
        c0z = mat(c0, z, strides[2], m, ldc)
        ref = alpha * (opa @ opb)
        if beta != 0:
            ref = ref + beta * c0z[:, :n].astype(np.float64)
        cs.append(mat(bufs[2].data, z, strides[2], m, ldc))
        refs.append(ref)
        c0s.append(c0z)
    if not batch:
        return cs[0], refs[0], c0s[0], sim.executed
    return np.stack(cs), np.stack(refs), np.stack(c0s), sim.executed
