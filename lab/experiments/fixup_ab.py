"""Stream-K's fix-up (codegen/ptx_streamk.py StreamKMixin.gather): what it costs and what its forms save
(issue 20).  A split tile's first piece adds its later pieces' partial slots; on a long-K shape with few
tiles (255x257x65537: 8 tiles on 264-396 block slots) a tile has 33-50 later pieces.  Variants of the
plan regtile.sgemm builds, against cuBLAS, interleaved kernel against kernel on tools/shape_sweep's
ShapeBench (each checked against float64 first, C NaN-poisoned):
- "tree": the fix-up as committed (session 10): a tree of fan-out streamk.FIXUP_FANOUT (4), the
  first piece ceil(log4(pieces)) levels deep, laid out once (session 11: finish_item's one gather call);
  "two_sites": the same tree laid out twice, for the first and the later pieces (until 9de6664); "binary": the same at fan-out 2 (as it ran at df84fc2:
  512^3's four-piece tiles two levels deep);
- "parallel": the first piece adds every later slot in K order, after every thread waited for its own
  slots' flags (parallel_fixup, as it ran at 813d6ca and c12fb85);
- "serial": the same with thread 0 waiting for each flag in turn (serial_fixup: the fix-up until session 10);
  both run in this commit's item loop (its gather replaced: piece 0 runs theirs, a later piece nothing);
- "no_fixup": the work list's slot counts zeroed, so no piece waits or adds (wrong results on purpose:
  what the whole fix-up costs; not checked);
- with held=1, the k16 members' configs the library does not hold also at config.max_registers=168
  (`.maxnreg`; until 1baabbb written into the text here): "tree_held", "parallel_held".  (c12fb85 also timed two slots a step, held: slower, 249.5 against 239.1 us on
  255x257x65537; that code is in git at c12fb85.)
Writes fixup_ab.json under $OUT.

    python3 -m lab.experiments.fixup_ab [held=1] [only=two_sites,binary,...] [MxNxK ...]
"""
import contextlib

from . import check_and_time_interleaved, over_shapes, program, take_option, versus

DEFAULT = ["255x257x65537", "64x1024x500000", "32x1024x131072", "64x4096x16384", "4096x64x65536",
           "1023x1025x1023", "8192x128x8192", "512x512x512", "127x511x257", "768x512x768", "128x2048x2048"]
HELD = [0]
ONLY = []  # only=a,b: build just these variants beside "tree" (and cuBLAS)


def _add_in_k_order(self, first, p, end):
    """The flat fix-up's adds, as both forms below ran them: slots first .. end-1 one after the other."""
    b = self.b
    b.emit("bar.sync 0;", "every later piece is in memory")
    b.emit("fence.acq_rel.gpu;")
    b.emit(f"mov.u32 {p}, {first};")
    add = b.label("add_slot")
    b.place(add)
    self.add_slot(p)
    b.emit(f"add.s32 {p}, {p}, 1;")
    more = self.setp("lt", p, end)
    b.emit(f"@{more} bra {add};")
    b.emit("bar.sync 0;", "every thread has read the slots")


def serial_fixup(self, first, count):
    """The fix-up until session 10, as it ran: thread 0 (the item loop's `leader`) waits for each
    flag in turn."""
    b, leader = self.b, self.leader
    p, end = self.named("fix_slot"), self.named("fix_end")
    b.emit(f"add.s32 {end}, {first}, {count};")
    b.emit(f"mov.u32 {p}, {first};")
    wait, waited = b.label("wait"), b.label("waited")
    skip = b.temp(".pred")
    b.emit(f"not.pred {skip}, {leader};")
    b.emit(f"@{skip} bra {waited};")
    b.place(wait)
    got = self.named("fix_flag")
    flag = self.flag_address(p)
    spin = b.label("spin")
    b.place(spin)
    b.emit(f"ld.acquire.gpu.global.u32 {got}, [{flag}];")
    unset = self.setp("eq", got, 0)
    b.emit(f"@{unset} bra {spin};")
    b.emit(f"add.s32 {p}, {p}, 1;")
    more = self.setp("lt", p, end)
    b.emit(f"@{more} bra {wait};")
    b.place(waited)
    _add_in_k_order(self, first, p, end)
    b.emit(f"mov.u32 {p}, {first};")
    clear, cleared = b.label("clear"), b.label("cleared")
    b.emit(f"@{skip} bra {cleared};")
    b.place(clear)
    b.emit(f"st.relaxed.gpu.global.u32 [{self.flag_address(p)}], 0;")
    b.emit(f"add.s32 {p}, {p}, 1;")
    more = self.setp("lt", p, end)
    b.emit(f"@{more} bra {clear};")
    b.place(cleared)


def parallel_fixup(self, first, count):
    """The fix-up of 813d6ca / c12fb85, as it ran: every thread t waits for slots first + t, + threads,
    ...; the slots added in K order; the same threads lower the flags."""
    b = self.b
    p, end = self.named("fix_slot"), self.named("fix_end")
    b.emit(f"add.s32 {end}, {first}, {count};")
    wait, waited = b.label("wait"), b.label("waited")
    b.emit(f"add.s32 {p}, {first}, {self.tid};", "thread t: slots first + t, + threads, ...")
    b.place(wait)
    b.emit(f"@!{self.setp('lt', p, end)} bra {waited};")
    got = self.named("fix_flag")
    flag = self.flag_address(p)
    spin = b.label("spin")
    b.place(spin)
    b.emit(f"ld.acquire.gpu.global.u32 {got}, [{flag}];")
    b.emit(f"@{self.setp('eq', got, 0)} bra {spin};")
    b.emit(f"add.s32 {p}, {p}, {self.cfg.threads};")
    b.emit(f"bra {wait};")
    b.place(waited)
    _add_in_k_order(self, first, p, end)
    clear, cleared = b.label("clear"), b.label("cleared")
    b.emit(f"add.s32 {p}, {first}, {self.tid};")
    b.place(clear)
    b.emit(f"@!{self.setp('lt', p, end)} bra {cleared};")
    b.emit(f"st.relaxed.gpu.global.u32 [{self.flag_address(p)}], 0;")
    b.emit(f"add.s32 {p}, {p}, {self.cfg.threads};")
    b.emit(f"bra {clear};")
    b.place(cleared)


def first_piece_only(fixup):
    """A StreamKMixin.gather replacement: piece 0 (the first piece) runs `fixup`, a later piece
    nothing (the item loop's one gather call site runs both)."""
    def gather(self, index, first, count):
        later = self.b.label("lab_later_piece")
        self.b.emit(f"@{self.setp('ne', index, 0)} bra.uni {later};")
        fixup(self, first, count)
        self.b.place(later)
    return gather


def two_sites(self, step, slot, first, count, stored):
    """StreamKMixin.finish_item as it ran until 9de6664: gather laid out twice, once for the first
    piece (index 0) and once for a later piece."""
    b = self.b
    partial, direct = b.label("partial"), b.label("direct")
    b.emit(f"@{self.setp('ge', slot, 0)} bra.uni {partial};")
    b.emit(f"@{self.setp('eq', count, 0)} bra.uni {direct};")
    self.gather(b.op("mov.u32", 0), first, count)
    b.place(direct)
    self.epilogue(step.epilogue)
    b.emit(f"bra.uni {stored};")
    b.place(partial)
    self.gather(b.op("add.s32", b.op("sub.s32", slot, first), 1), first, count)
    self.epilogue_partial(slot)
    b.emit("bar.sync 0;")
    flag = self.flag_address(slot)
    b.emit(f"@{self.leader} fence.acq_rel.gpu;")
    b.emit(f"@{self.leader} st.relaxed.gpu.global.u32 [{flag}], 1;")


@contextlib.contextmanager
def patched(owner, name, value):
    plain = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, plain)


def no_counts(self):
    """StreamKPlan.work_ints with every slot count 0, the first pieces' and the split tiles' (no piece
    waits or adds)."""
    ints = PLAIN_WORK_INTS(self).copy()
    n = len(self.items)
    ints[:8 * n].reshape(n, 8)[:, 5] = 0
    return ints


PLAIN_WORK_INTS = None


def one(torch, bench, m, n, k):
    global PLAIN_WORK_INTS
    import copy
    from regtile.codegen import streamk
    from regtile.codegen.ptx_streamk import StreamKMixin
    from regtile.runtime.plans import GemmPlan
    from .held_registers import k16
    PLAIN_WORK_INTS = streamk.StreamKPlan.work_ints
    lib = GemmPlan(m, n, k, False, False, k, n, n)
    row = {"m": m, "n": n, "k": k, "config": lib.config.describe() if lib.gemv is None else "GEMV"}
    if lib.gemv is not None or not lib.config.stream_k:
        return row, f"not a stream-K plan ({row['config']})"
    cfg = lib.config

    def build(config=cfg):
        return GemmPlan(m, n, k, False, False, k, n, n, config=config, backend="ptx")

    def wanted(name):
        return not ONLY or name in ONLY

    plans = {"tree": lib}
    if wanted("two_sites"):
        with patched(StreamKMixin, "finish_item", two_sites):
            plans["two_sites"] = build()
    if wanted("binary"):
        with patched(streamk, "FIXUP_FANOUT", 2):
            plans["binary"] = build()
    for name, fixup in (("parallel", parallel_fixup), ("serial", serial_fixup)):
        if wanted(name):
            with patched(StreamKMixin, "gather", first_piece_only(fixup)):
                plans[name] = build()
    if wanted("no_fixup"):
        plans["no_fixup"] = copy.copy(lib)  # the same kernel; its own work list (no stream bound yet)
        plans["no_fixup"]._bound = {}
    if HELD[0] and k16(cfg) and not cfg.max_registers:
        plans["tree_held"] = build(cfg.replace(max_registers=168))
        with patched(StreamKMixin, "gather", first_piece_only(parallel_fixup)):
            plans["parallel_held"] = build(cfg.replace(max_registers=168))
    fns = dict(cublas=bench.cublas(), **{name: bench.library(plan) for name, plan in plans.items()})
    if "no_fixup" in fns:
        with patched(streamk.StreamKPlan, "work_ints", no_counts):
            fns["no_fixup"](0)  # binds its work list (zeroed counts) on this stream
            torch.cuda.synchronize()
    checked = tuple(x for x in plans if x != "no_fixup")
    check, u = check_and_time_interleaved(torch, bench, fns, checked)
    row.update(check=check, us=u, stream_k=lib.describe(), plan=describe_sk(lib))
    return row, versus(u, check, plans) + f"  [{lib.kernel.label}; {row['plan']}]"


def describe_sk(plan):
    from regtile.runtime.sgemm_launch import describe_plans
    return describe_plans(plan.kernel, plan.m, plan.n, plan.k).get("stream_k", "")


def run(argv):
    held, only = take_option(argv, "held"), take_option(argv, "only")
    if held is not None:
        HELD[0] = int(held)
    if only:
        ONLY[:] = only.split(",")
    over_shapes(argv, DEFAULT, "fixup_ab.json", one)


main = program(run, "[held=1] [only=VARIANT,...] [MxNxK ...]")

if __name__ == "__main__":
    import sys
    sys.exit(main())
