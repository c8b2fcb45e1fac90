"""Ablation in the SASS (issue 9): the best kernel's own cubin (PTX 128x256 8x16 + SASS pass),
with the main loop's LDS, LDG or STS+BAR replaced by NOPs - registers, FFMA order, reuse
bits and every other instruction's scheduling controls unchanged, so unlike deleting them from
the PTX (lab/experiments/ablation_experiment.py, where ptxas re-allocated and the banks changed) this
isolates what those instructions cost where they stand.

A NOP keeps the replaced instruction's stall count and wait mask and sets no scoreboard (so
waits on it pass at once): it still takes the issue slot, so a variant measures the latency
and throughput the instructions add beyond their issue.  "stall 1" variants also cut the
NOP's stall count to 1 (ptxas spaces LDS.128 and STS 4 cycles apart).  Results are wrong on
purpose (stale fragments / tiles): timed only, interleaved with cuBLAS (check=False).
"LDS broadcast" keeps every LDS, its scoreboards and waits, but points all lanes at one
address: the latency stays, the shared-memory traffic halves (one wavefront, not two).
Also runnable on the CPU with --dry: builds every variant and checks it through nvdisasm."""
import argparse
import dataclasses
import sys

from regtile.runtime.compiler import compile_config
from regtile.sass import cubin as cubin_info
from regtile.sass.disasm import function_of
from regtile.sass.fields import put_instruction
from regtile.sass.isa import CONTROL_SHIFT  # the controls: high word, bit 41 up

from . import best_config, interleaved

NOP_LO = 0x7918  # sm_90 NOP (read off a ptxas cubin); its high word holds only controls


def with_nops(art, kinds, stall1=False):
    text_offset, _ = cubin_info.text_section(art.cubin, art.name)
    func = function_of(art.cubin, art.name)[1]
    data = bytearray(art.cubin)
    n = 0
    for ins in func.loop_instructions():
        if ins.base not in kinds:
            continue
        c = ins.hi >> CONTROL_SHIFT
        c = (c & 0xF) | (c & (1 << 4)) | (7 << 5) | (7 << 8) | (c & (0x3F << 11))  # stall, yield, no SBs, waits
        if stall1:
            c = (c & ~0xF) | 1
        put_instruction(data, text_offset, ins.offset, NOP_LO, c << CONTROL_SHIFT)
        n += 1
    new = dataclasses.replace(art, cubin=bytes(data))
    check = function_of(new.cubin, art.name)[1]  # nvdisasm must read it
    assert sum(1 for i in check.loop_instructions() if i.base == "NOP") >= n
    return new, n


def broadcast_lds(art):
    """Every LDS of the loop reads one address for the whole warp (its address register
    becomes RZ: [UR + imm] alone): one wavefront instead of two, the same latency and
    scoreboards - what the LDS cost in shared-memory bandwidth rather than in latency."""
    from regtile.sass.fields import RZ, locate, set_bits
    text_offset, _ = cubin_info.text_section(art.cubin, art.name)
    func = function_of(art.cubin, art.name)[1]
    data = bytearray(art.cubin)
    n = 0
    for ins in func.loop_instructions():
        if ins.base != "LDS":
            continue
        lo, hi = ins.lo, ins.hi
        for f in locate(ins):
            if not f.written and f.reg != RZ:
                lo, hi = set_bits(lo, hi, f.bit, RZ)
        put_instruction(data, text_offset, ins.offset, lo, hi)
        n += 1
    new = dataclasses.replace(art, cubin=bytes(data))
    check = function_of(new.cubin, art.name)[1]
    assert all("[UR" in i.text for i in check.loop_instructions() if i.base == "LDS"), "address not replaced"
    return new, n


def _args(argv, prog):
    p = argparse.ArgumentParser(prog=f"python3 -m lab.experiments.{prog}", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sizes", nargs="*", type=int, help="cube sizes to time (default 4096)")
    p.add_argument("--dry", action="store_true", help="build every variant on the CPU and check it through nvdisasm")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = _args(argv, "nop_ablation_experiment")
    art = compile_config(best_config(), "sm_90", backend="ptx")
    variants = {"full +pass": ((), False), "LDS->NOP": (("LDS",), False), "LDS->NOP stall 1": (("LDS",), True),
                "STS+BAR->NOP": (("STS", "BAR"), False), "STS+BAR->NOP stall 1": (("STS", "BAR"), True),
                "LDG->NOP": (("LDG",), False), "LDS+STS+BAR+LDG->NOP stall 1": (("LDS", "STS", "BAR", "LDG"), True)}
    arts = {}
    for name, (kinds, s1) in variants.items():
        arts[name], n = with_nops(art, kinds, s1) if kinds else (art, 0)
        print(f"{name:32s} {n} loop instructions replaced", flush=True)
    arts["LDS broadcast (one address)"], n = broadcast_lds(art)
    print(f"{'LDS broadcast (one address)':32s} {n} LDS read one address", flush=True)
    return interleaved(arts, args, "nop_ablation.json")


if __name__ == "__main__":
    sys.exit(main())
