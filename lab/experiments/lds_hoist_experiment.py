"""Experiment (issue 9): hoist the fragment loads of the best kernel's cubin into spare registers.

docs/perf-log.md measured the fragment loads' latency as the one large cost left (LDS -> NOP:
+6%; halving their shared-memory traffic: nothing).  ptxas places each LDS right after the last
read of its destination quad, 17-64 instructions before the first FFMA that needs it, because
it reuses those registers.  This prototype, on the final cubin of PTX 128x256 8x16 + SASS pass:

- takes the loop's LDS with the shortest distance to their first reader, up to the number of
  spare aligned quads above ptxas's registers (the count may rise to 255: one 256-thread block
  an SM either way);
- renames each one's destination quad to a spare quad, in the LDS and in every reader up to the
  next write of the old quad (the live range must lie in one straight-line stretch);
- swaps the LDS with an FFMA up to DISTANCE instructions earlier; each position keeps its stall
  count, yield and scoreboard waits (a wait ptxas put on one FFMA may guard the FFMAs after it:
  the first try moved waits with the FFMA and computed wrong results), the scoreboards an
  instruction sets move with it, the moved FFMA loses its reuse flags (a missing flag only
  costs a read); checks: no instruction in between writes the FFMA's sources or touches its
  destination, none writes the LDS's address registers, no label or branch in between, when
  the LDS sets a scoreboard no LDS/LDG in between without one of its own (its readers may
  wait on the moved one's: loads complete in order), no reader of the FFMA's result within 8
  instructions after its new place;
- raises EIATTR_REGCOUNT to cover the spare quads, and checks the cubin through nvdisasm.

Not wired into the pass: a measurement.  The variants are checked against float64 and timed
interleaved with cuBLAS (bench.interleave_with_cublas).  `--dry` builds them on the CPU.
"""
import dataclasses
import sys

from regtile.codegen.presets import get_preset
from regtile.runtime.compiler import compile_config
from regtile.sass import cubin as cubin_info
from regtile.sass.disasm import function_of
from regtile.sass.fields import locate, put_instruction
from regtile.sass.isa import CONTROL_SHIFT, REUSE_BIT_OF_SLOT, RZ, set_bits  # the controls: hi, bit 41 up

from .nop_ablation_experiment import _args


def sets_scoreboard(ins) -> bool:
    c = ins.hi >> CONTROL_SHIFT
    return ((c >> 5) & 7) != 7
# controls that stay with the position: stall count, yield, the scoreboard wait mask (a wait
# placed on one FFMA may guard the FFMAs after it too); the scoreboards an instruction sets
# move with it
POSITION = (0x1F | (0x3F << 11)) << CONTROL_SHIFT
REUSE_BITS = sum(1 << (b - 64) for b in REUSE_BIT_OF_SLOT.values())


def regs_of(ins, written):
    return {r for f in locate(ins) if f.written == written and f.reg != RZ for r in f.registers()}


def hoist_one(art, distance: int, spare_from: int, spare: int):
    """One move on `art`'s cubin: the loop LDS (destination below spare_from) with the
    shortest distance to its first reader that can move, renamed to quad `spare` and swapped
    with the earliest FFMA up to `distance` instructions above it.  (cubin, move) or None."""
    func = function_of(art.cubin, art.name)[1]
    instrs = func.instructions
    start, end = func.main_loop()
    idx = [k for k, i in enumerate(instrs) if start <= i.offset <= end]
    lo_k, hi_k = idx[0], idx[-1]
    label_at = set(func.labels.values())
    barrier = lambda k: instrs[k].offset in label_at or instrs[k].base in ("BRA", "BAR", "EXIT")
    cands = []
    for q in range(lo_k, hi_k + 1):
        ins = instrs[q]
        dest = regs_of(ins, True)
        if ins.base != "LDS" or max(dest) >= spare_from:
            continue
        readers, nxt = [], None
        for k in range(q + 1, hi_k + 1):
            if barrier(k):
                break
            if dest & regs_of(instrs[k], False):
                readers.append(k)
            if dest & regs_of(instrs[k], True):
                nxt = k
                break
        if nxt is not None and readers:  # the live range stays in the straight-line stretch
            cands.append((readers[0] - q, q, sorted(dest), readers))
    for dist, q, dest, readers in sorted(cands):
        addr = regs_of(instrs[q], False)
        for p in range(max(lo_k, q - distance), q - 8):
            f = instrs[p]
            if f.base != "FFMA" or f.predicate or any(barrier(k) for k in range(p + 1, q + 1)):
                continue
            f_src, f_dst = regs_of(f, False), regs_of(f, True)
            between = range(p + 1, q)
            if any(regs_of(instrs[k], True) & (f_src | f_dst) or regs_of(instrs[k], False) & f_dst for k in between):
                continue
            if any(regs_of(instrs[k], True) & addr for k in range(p, q)):
                continue
            # an LDS/LDG in between without a scoreboard of its own is covered by a later one
            # completing (they complete in order): it must not end up after the LDS it relied on
            if sets_scoreboard(instrs[q]) and any(instrs[k].base in ("LDS", "LDG") and not sets_scoreboard(instrs[k])
                                                  for k in between):
                continue
            # the FFMA's result, now written at q, must not be read within its latency after q
            if any(regs_of(instrs[k], False) & f_dst for k in range(q + 1, min(q + 9, len(instrs)))):
                continue
            return _apply(art, instrs, q, p, dest, readers, spare), (q, p, dist)
    return None


def _apply(art, instrs, q, p, dest, readers, spare):
    body = {k: (instrs[k].lo, instrs[k].hi) for k in [q, p] + readers}
    ren = {r: spare + (r - dest[0]) for r in dest}
    for k in [q] + readers:
        lo, hi = body[k]
        for f in locate(instrs[k]):
            if f.reg in ren and f.written == (k == q):
                lo, hi = set_bits(lo, hi, f.bit, ren[f.reg])
        body[k] = (lo, hi)
    (llo, lhi), (flo, fhi) = body[q], body[p]
    # positions keep stall, yield and waits; the FFMA moves without reuse flags
    body[p] = (llo, (lhi & ~POSITION) | (fhi & POSITION))
    body[q] = (flo, ((fhi & ~POSITION) | (lhi & POSITION)) & ~REUSE_BITS)
    data = bytearray(art.cubin)
    text_offset, _ = cubin_info.text_section(art.cubin, art.name)
    for k, (lo, hi) in body.items():
        put_instruction(data, text_offset, instrs[k].offset, lo, hi)
    regs = max(art.resources.registers, spare + 4 + 2)
    out = cubin_info.set_register_count(bytes(data), art.name, regs)
    function_of(out, art.name)  # nvdisasm must read it
    return dataclasses.replace(art, cubin=out, resources=dataclasses.replace(art.resources, registers=regs))


def hoist(art, max_moves: int, distance: int):
    func = function_of(art.cubin, art.name)[1]
    used = set()
    for ins in func.instructions:
        used |= regs_of(ins, True) | regs_of(ins, False)
    first = (max(used) // 4 + 1) * 4
    moves = []
    for s in range(first, 252, 4):
        if len(moves) >= max_moves:
            break
        got = hoist_one(art, distance, first, s)
        if got is None:
            break
        art, move = got
        moves.append(move)
    return art, moves, art.resources.registers


def main(argv=None) -> int:
    args = _args(argv, "lds_hoist_experiment")
    cfg = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, sass_pass=True)
    art = compile_config(cfg, "sm_90", backend="ptx")
    variants = {"full +pass": art}
    for n, d in ((4, 96), (7, 96), (7, 160)):
        new, moves, regs = hoist(art, n, d)
        name = f"hoist {len(moves)} LDS, <= {d} up"
        variants[name] = new
        print(f"{name}: {regs} registers; moved (from, to, first-use distance before): {moves}", flush=True)
    if args.dry:
        return 0
    from regtile.tools import interleave
    interleave.run(variants, args.sizes or [4096], "lds_hoist.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
