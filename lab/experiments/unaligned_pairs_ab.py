"""Unaligned rows' vector floats with fewer, wider loads (issue 20, session 12).

With unaligned_vectors a k-tile inside K on rows that are not 16-byte aligned loads each float4's four floats
by four 4-byte loads (ptx_edges._load_unaligned_unchecked).  A warp's 4-byte load there spans the 512 bytes
its float4 did (lanes 16 bytes apart), so the vector floats touch four times the sectors (Nsight Compute at
6741b5f: 485M against cuBLAS's 147M on 8191x8193x1025, with wait and long-scoreboard stalls at 0.20 and 0.14 a
issued instruction against 0.02 and 0.04).  Each variant below fills the same registers with the same floats
from fewer load instructions, so nothing else in the kernel changes:

  pairs   8-byte aligned vectors (address bit 2 clear): two 8-byte loads; the others: a float, an 8-byte
          load of the middle two (then 8-byte aligned), a float - 2 or 3 loads a vector, predicated per lane.
  window  the two 16-byte aligned float4s around the vector (the second only where it is not aligned;
          a 16-byte block holding a float of the matrix never faults), then the four floats picked by
          the address's bits 2 and 3 with funnel shifts (shf.r.clamp by 0 or 32 selects one of two words):
          1 or 2 loads and 9 shifts a vector, four more registers while the loads fly.
  joined  the vector floats' 4-byte loads moved after the operands' paths join (a branch past the float4 and
          edge paths where they run), predicated, in the block of the k-tile's FFMAs: in their own block
          ptxas issues them 4 cycles apart (S04, sm_90 SASS of 8191x8193x1025's kernel: 12 loads, 48 cycles
          a k-tile in which the warp issues nothing else).  Not run: in its SASS ptxas still issues the 12
          together, 4 cycles apart, ahead of the FFMAs.
  bpairs  B only (row-major: a warp's vectors share one row, so the address's bits 2-3 are warp-uniform and,
          BK being a multiple of 4, the same for every copy and k-tile): one branch a k-tile to a float4, two
          8-byte loads, or the four floats for every copy (float + 8-byte + float would load the middle pair
          into an aligned register pair and move it: the moves wait for the load).  Not run: in its sm_90
          SASS ptxas if-converts the 8-byte and 4-byte paths into one block of 12 predicated loads (B's
          8 floats and 4 pairs), still 4 cycles apart; only the float4 path stays a block of its own.
          A keeps the four 4-byte loads.
  member:NAME  another family member's config for the shape (heuristic.member_config, then for_operands).
  sq128k16     sq-128x128-edges with BK = 16 (one block an SM: min_blocks=1; 148 registers), so the k-tile's
               FFMAs between a load and its shared-memory store take twice as long.
  ring3   the config on the cp.async ring of 3 stages (ptx_ring.py: inside tiles on unaligned rows a 4-byte
  ring4   cp.async a float, no staging registers; without the SASS pass, which has no LDGSTS forms), 4 stages.

Measured at fba33f4 (docs/data/unaligned_pairs_ab_2026-11-27_fba33f4.log, H100): pairs and window 27-30% slower
than the vector floats (8191x8193x1025 4187.6 and 4251.1 against 3051.6 us).  Both consume their loads at once
(window's shifts; pairs' second predicated load of a register waits for the first) where the vector floats'
registers are read only by the shared-memory store after the k-tile's FFMAs.  At acd182f
(docs/data/unaligned_pairs_ab_2026-11-27_acd182f.log): ring3 and ring4 15-20% slower (8191x8193x1025 3597.6 and
3598.4 against 3052.1 us).  "lib" was wide-128x256-noedge on the three unaligned suite shapes then; since e92c8ee
8191x8193x1025's is sq-128x128-edges.  At 2554c8e (docs/data/unaligned_pairs_ab_2026-11-27_2554c8e.log): BK = 16
no better - member:wide-64x128-k16 2996.5 against lib 2992.4 us on 8191x8193x1025, 2953.6 / 2905.5 on
4099x4093x4091, 1709.2 / 1676.7 on 6143x2047x3071; sq128k16 11-13% slower (3369.5, 3184.3, 1792.8).

For each shape: the plan regtile.sgemm builds ("lib") and the same plan with each variant's loads, against
cuBLAS, interleaved kernel against kernel on tools/shape_sweep's ShapeBench (each checked against float64
first, C NaN-poisoned).  Writes unaligned_pairs_ab.json under $OUT.

    python3 -m lab.experiments.unaligned_pairs_ab [variants=pairs,window,ring3,ring4,joined,bpairs,sq128k16,member:NAME] [MxNxK ...]
"""
import contextlib

from . import member_for_shape, over_shapes, program, take_option, time_plans
from .fixup_ab import patched

DEFAULT = ["8191x8193x1025", "4099x4093x4091", "6143x2047x3071", "4097x4097x4097", "2049x2047x1025",
           "1023x1025x1023", "255x257x65537", "1009x1013x1019"]
VARIANTS = ["pairs", "window"]


def _plain():
    from regtile.codegen.ptx_edges import EdgeLoadsMixin
    return EdgeLoadsMixin._load_unaligned_unchecked


def _low_bits(self, ptr: str, mask: int) -> str:
    b = self.b
    return b.op("and.b32", b.op("cvt.u32.u64", ptr), mask)


def pairs_loads(self, loads, copies, ptrs, done):
    from regtile.codegen.ptx_builder import _addr, _r
    b, operand = self.b, loads.operand
    for (copy, r, *_), ptr in zip(copies, ptrs):
        c = [_r(x) for x in copy.regs]
        odd = self.setp("ne", _low_bits(self, ptr, 4), 0, typ=".u32")
        b.emit(f"@!{odd} ld.global.nc.v2.f32 {{{c[0]}, {c[1]}}}, [{ptr}];", f"{operand} copy {r}: 8-byte aligned")
        b.emit(f"@!{odd} ld.global.nc.v2.f32 {{{c[2]}, {c[3]}}}, {_addr(ptr, 8)};")
        b.emit(f"@{odd} ld.global.nc.f32 {c[0]}, [{ptr}];", f"{operand} copy {r}: 4-byte aligned")
        b.emit(f"@{odd} ld.global.nc.v2.f32 {{{c[1]}, {c[2]}}}, {_addr(ptr, 4)};")
        b.emit(f"@{odd} ld.global.nc.f32 {c[3]}, {_addr(ptr, 12)};")
    b.emit(f"bra.uni {done};")


def window_loads(self, loads, copies, ptrs, done):
    from regtile.codegen.ptx_builder import _addr, _r
    b, operand = self.b, loads.operand
    for (copy, r, *_), ptr in zip(copies, ptrs):
        c = [_r(x) for x in copy.regs]
        low = _low_bits(self, ptr, 12)  # bytes past the 16-byte block: 4 x (the vector's float in it)
        aligned = b.op("and.b64", ptr, -16, typ=".b64")
        shifted = self.setp("ne", low, 0, typ=".u32")
        n = [b.temp(".b32") for _ in range(4)]
        b.emit(f"ld.global.nc.v4.f32 {{{', '.join(c)}}}, [{aligned}];", f"{operand} copy {r}: its 16-byte block")
        b.emit(f"@{shifted} ld.global.nc.v4.f32 {{{', '.join(n)}}}, {_addr(aligned, 16)};", "and the next")
        w = c + n
        # by 2 floats where bit 3 is set, then by 1 where bit 2 is: shf.r.clamp by 32 gives the second word
        s1 = b.op("and.b32", b.op("shl.b32", low, 2), 32)  # bit 3 -> 32
        s0 = b.op("and.b32", b.op("shl.b32", low, 3), 32)  # bit 2 -> 32
        for i in range(5):
            b.emit(f"shf.r.clamp.b32 {w[i]}, {w[i]}, {w[i + 2]}, {s1};")
        for i in range(4):
            b.emit(f"shf.r.clamp.b32 {w[i]}, {w[i]}, {w[i + 1]}, {s0};")
    b.emit(f"bra.uni {done};")


def bpairs_loads(self, loads, copies, ptrs, done):
    from regtile.codegen.ptx_builder import _addr, _r
    if loads.operand != "B" or self.cfg.trans_b:
        return _plain()(self, loads, copies, ptrs, done)
    b = self.b
    low = _low_bits(self, ptrs[0], 12)
    v4, v2 = b.label("b_v4"), b.label("b_v2")
    b.emit(f"@{self.setp('eq', low, 0, typ='.u32')} bra {v4};", "B rows' vectors 16-byte aligned here")
    b.emit(f"@{self.setp('eq', low, 8, typ='.u32')} bra {v2};", "8-byte aligned")
    for (copy, r, *_), ptr in zip(copies, ptrs):
        c = [_r(x) for x in copy.regs]
        for e, reg in enumerate(c):  # an 8-byte load into c1:c2 would need an aligned pair and two moves
            b.emit(f"ld.global.nc.f32 {reg}, {_addr(ptr, 4 * e)};", f"B copy {r}, element {e}: 4-byte aligned")
    b.emit(f"bra.uni {done};")
    b.place(v4)
    for (copy, r, *_), ptr in zip(copies, ptrs):
        b.emit(f"ld.global.nc.v4.f32 {{{', '.join(_r(x) for x in copy.regs)}}}, [{ptr}];", f"B copy {r}")
    b.emit(f"bra.uni {done};")
    b.place(v2)
    for (copy, r, *_), ptr in zip(copies, ptrs):
        c = [_r(x) for x in copy.regs]
        b.emit(f"ld.global.nc.v2.f32 {{{c[0]}, {c[1]}}}, [{ptr}];", f"B copy {r}")
        b.emit(f"ld.global.nc.v2.f32 {{{c[2]}, {c[3]}}}, {_addr(ptr, 8)};")
    b.emit(f"bra.uni {done};")


def joined_float4_or_edge(self, loads, copies, ptrs, k0, kend, edge, done):
    """load_float4_or_edge with the vector floats deferred: where they would run, a branch past the
    operand's paths, and their loads left for joined_load_tile."""
    b, operand = self.b, loads.operand
    unchecked = self.setp("le", kend, self.p[loads.k_dim.bound], self.floats_ok[operand])
    b.emit(f"@{unchecked} bra.uni {done};", f"{operand}: rows not aligned, tile inside K and clamped: "
                                            f"each vector's floats, unchecked, after the join")
    self._deferred_floats.append((loads, copies, ptrs, unchecked))
    self.float4_loads([(loads, copies, ptrs)], self.tile_ok[operand], kend, edge, done)
    b.place(edge)
    self.checked_loads(loads, copies, ptrs, k0, done)


def joined_load_tile(original):
    def load_tile(self, k0, operands):
        from regtile.codegen.ptx_builder import _addr, _r
        self._deferred_floats = []
        original(self, k0, operands)
        for loads, copies, ptrs, unchecked in self._deferred_floats:
            for (copy, r, *_), ptr in zip(copies, ptrs):
                for e, reg in enumerate(copy.regs):
                    self.b.emit(f"@{unchecked} ld.global.nc.f32 {_r(reg)}, {_addr(ptr, 4 * e)};",
                                f"{loads.operand} copy {r}, element {e}")
    return load_tile


@contextlib.contextmanager
def variant(name):
    from regtile.codegen.emit_ptx import _Kernel
    if name == "joined":
        with patched(_Kernel, "load_float4_or_edge", joined_float4_or_edge), \
                patched(_Kernel, "load_tile", joined_load_tile(_Kernel.load_tile)):
            yield
        return
    fn = {"pairs": pairs_loads, "window": window_loads, "bpairs": bpairs_loads}[name]
    with patched(_Kernel, "_load_unaligned_unchecked", fn):
        yield


def plans_of(m, n, k):
    from regtile.runtime.plans import GemmPlan
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    plans = {"lib": lib}
    if lib.gemv is None and lib.backend == "ptx" and lib.config.unaligned_vectors:
        for name in VARIANTS:
            if name.startswith("member:") or name == "sq128k16":
                member = "sq-128x128-edges" if name == "sq128k16" else name[len("member:"):]
                cfg, backend = member_for_shape(member, m, n, k)
                if name == "sq128k16":
                    cfg = cfg.replace(bk=16, min_blocks=1)
                plans[name] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend=backend)
                continue
            if name.startswith("ring"):
                cfg = lib.config.replace(stages=int(name[4:]), sass_pass=False, hoist_head=False)
                plans[name] = GemmPlan(m, n, k, False, False, k, n, n, config=cfg, backend="ptx")
                continue
            with variant(name):
                plans[name] = GemmPlan(m, n, k, False, False, k, n, n, config=lib.config, backend="ptx")
    return plans, row


def one(torch, bench, m, n, k):
    plans, row = plans_of(m, n, k)
    if len(plans) == 1:
        return row, f"no vector floats in its plan ({row['config']})"
    return time_plans(torch, bench, plans, row, plans["lib"].kernel.label)


def run(argv):
    variants = take_option(argv, "variants")
    if variants:
        VARIANTS[:] = variants.split(",")
    over_shapes(argv, DEFAULT, "unaligned_pairs_ab.json", one)


main = program(run, "[variants=pairs,window,ring3,ring4,joined,bpairs,sq128k16,member:NAME] [MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
