"""Experiment (issue 9): is what the fragment loads cost their latency (the FFMAs waiting for
them), or their execution (the shared-memory pipe, the write-back of 4 registers each)?

docs/perf-log.md: LDS -> NOP makes the best kernel 6% faster, while halving their shared-memory
traffic does nothing.  Two more timing-only variants of its final cubin (PTX 128x256 8x16 + SASS
pass), results wrong on purpose, interleaved with cuBLAS (check=False):

- "LDS kept, FFMA waits cleared": every LDS still executes and writes its fragment quad, but no
  FFMA of the loop waits on a scoreboard (see `variant` for how the waits that guarded other
  instructions are kept).  If this is as fast
  as LDS -> NOP, the cost is the wait - latency a schedule can hide;
- "LDS to a dead quad, FFMA waits cleared": the same, each LDS writing a spare quad above the
  kernel's registers (count raised to 252: still one block an SM), so that no FFMA operand's
  register is written by a load in flight.

Also runnable on the CPU with --dry: builds every variant and checks it through nvdisasm."""
import dataclasses, sys
from regtile.codegen.presets import get_preset
from regtile.runtime import cubin_info
from regtile.runtime.compiler import compile_config
from regtile.runtime.sass import function_of
from regtile.runtime.sass_fields import locate, put_instruction, set_bits
from regtile.runtime.ffma_reorder import CONTROL_SHIFT

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from nop_ablation_experiment import with_nops  # noqa: E402  (same folder)

def lds_only_scoreboards(loop):
    """Scoreboards of the loop that only LDS set: the FFMAs' waits on these wait for
    fragments and nothing else (a wait on a scoreboard an LDG or STS also uses may guard the
    instructions after the FFMA - an address register an LDG is still reading: clearing those
    made the first try fault with an illegal address)."""
    def sbs(ins):
        c = ins.hi >> CONTROL_SHIFT
        return {x for x in ((c >> 5) & 7, (c >> 8) & 7) if x != 7}
    lds = set().union(*(sbs(i) for i in loop if i.base == "LDS"))
    other = set().union(*(sbs(i) for i in loop if i.base != "LDS"))
    return lds - other


def variant(art, clear_waits: bool, dead_quad: bool):
    """clear_waits: the loop's FFMAs wait on no scoreboard; their waits move to every non-FFMA,
    non-LDS instruction of the loop, so that whatever an FFMA's wait guarded after it stays
    guarded (the first try dropped them and faulted with an illegal address: an address
    register overwritten while an LDG still read it)."""
    text_offset, _ = cubin_info.text_section(art.cubin, art.name)
    func = function_of(art.cubin, art.name)[1]
    loop = func.loop_instructions()
    data = bytearray(art.cubin)
    only = lds_only_scoreboards(loop)
    shared = 0
    for ins in loop:
        if ins.base == "FFMA":
            shared |= ((ins.hi >> CONTROL_SHIFT) >> 11) & 0x3F & ~sum(1 << b for b in only)
    lds_bits = sum(1 << b for b in only)
    # read scoreboards of the other loads and stores: an LDS may overwrite a register an LDG
    # still reads as its address (LDG ... [R88.64] then LDS.128 R88: the fourth try's fault)
    read_sbs = 0
    for ins in loop:
        c = ins.hi >> CONTROL_SHIFT
        if ins.base != "LDS" and ((c >> 8) & 7) != 7:
            read_sbs |= 1 << ((c >> 8) & 7)
    spare = (art.resources.registers + 3) // 4 * 4
    regs = art.resources.registers
    for ins in loop:
        lo, hi = ins.lo, ins.hi
        if clear_waits and ins.base == "FFMA":
            hi &= ~(0x3F << (11 + CONTROL_SHIFT))
        elif clear_waits and ins.base != "LDS":
            # every wait taken off the FFMAs moves to the loop's other instructions: ptxas
            # reuses fragment registers for other work (the loop head builds an LDG address in
            # R88:R89, an LDS destination) and LDS read their address registers late (read
            # scoreboards; UR7 is rewritten at the loop head) - the second and third tries
            # faulted with misaligned addresses
            hi |= (shared | lds_bits) << (11 + CONTROL_SHIFT)
        elif clear_waits:  # an LDS
            hi |= (shared & read_sbs) << (11 + CONTROL_SHIFT)
        if dead_quad and ins.base == "LDS":
            for f in locate(ins):
                if f.written:
                    lo, hi = set_bits(lo, hi, f.bit, spare)
            regs = spare + 4 + 2
        put_instruction(data, text_offset, ins.offset, lo, hi)
    if clear_waits:
        # the loads of the last k-slice may still be in flight at the loop's exit, and ptxas
        # reuses fragment registers as addresses after it (the second try: misaligned address):
        # the first instruction after the loop waits on every scoreboard
        after = next(i for i in func.instructions if i.offset > loop[-1].offset)
        put_instruction(data, text_offset, after.offset, after.lo, after.hi | (0x3F << (11 + CONTROL_SHIFT)))
    out = bytes(data)
    if regs != art.resources.registers:
        out = cubin_info.set_register_count(out, art.name, regs)
    function_of(out, art.name)  # nvdisasm must read it
    return dataclasses.replace(art, cubin=out)


cfg = get_preset("zorder").config.replace(bn=256, tn=16, min_blocks=1, sass_pass=True)
art = compile_config(cfg, "sm_90", backend="ptx")
arts = {"full +pass": art,
        "LDS->NOP": with_nops(art, ("LDS",))[0],
        "LDS kept, FFMA waits cleared": variant(art, True, False),
        "LDS to a dead quad, FFMA waits cleared": variant(art, True, True),
        "FFMA waits cleared, LDS->NOP": with_nops(variant(art, True, False), ("LDS",))[0]}
print("scoreboards only LDS set:", sorted(lds_only_scoreboards(function_of(art.cubin, art.name)[1].loop_instructions())))
for name in arts:
    print(name, flush=True)
if "--dry" in sys.argv:
    sys.exit(0)
from regtile.tools import interleave
interleave.run(arts, interleave.sizes_from(sys.argv[1:], (4096,)), "lds_latency.json", check=False)
