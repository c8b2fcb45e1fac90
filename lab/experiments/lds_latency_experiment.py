"""Experiment (issue 9): is what the fragment loads cost their latency (the FFMAs waiting for
them) or their execution (the shared-memory pipe, the write-back of 4 registers each)?

docs/perf-log.md: LDS -> NOP makes the best kernel 6% faster, while halving their shared-memory
wavefronts (every lane one address) does nothing.  Here the loop's LDS.128 become LDS.64 or
LDS.32 in the final cubin of PTX 128x256 8x16 + SASS pass: the same instructions, addresses,
scoreboards and waits, the same latency, but a half or a quarter of the data read and written
back (the size field, bits 9-11 of the high word: 4 = 32 bits, 5 = 64, 6 = 128, read off
ptxas's own LDS and LDS.128).  Results wrong on purpose (fragments partly stale): timed only,
interleaved with cuBLAS (check=False).  If LDS.32 is as fast as LDS -> NOP, the cost is the
data moved; if it stays at the kernel's speed, the cost is the wait - latency a schedule can
hide.

A first version cleared the FFMAs' scoreboard waits instead (the loads kept, nobody waiting);
four variants of it faulted at 4096^3, each time because a wait ptxas put on an FFMA also
guarded a non-FFMA instruction after it (docs/perf-log.md).  Also runnable on the CPU with
--dry: builds every variant and checks it through nvdisasm."""
import dataclasses
import sys

from regtile.runtime.compiler import compile_config
from regtile.sass import cubin as cubin_info
from regtile.sass.disasm import function_of
from regtile.sass.fields import put_instruction

from . import best_config, interleaved
from .nop_ablation_experiment import _args, with_nops

SIZE_FIELD = 0x7 << 9  # in the high word
SIZE_CODE = {32: 4, 64: 5, 128: 6}


def narrowed(art, bits: int):
    text_offset, _ = cubin_info.text_section(art.cubin, art.name)
    func = function_of(art.cubin, art.name)[1]
    data = bytearray(art.cubin)
    n = 0
    for ins in func.loop_instructions():
        if ins.base == "LDS" and (ins.hi & SIZE_FIELD) == SIZE_CODE[128] << 9:
            put_instruction(data, text_offset, ins.offset, ins.lo, (ins.hi & ~SIZE_FIELD) | SIZE_CODE[bits] << 9)
            n += 1
    out = bytes(data)
    check = function_of(out, art.name)[1]  # nvdisasm must read it
    want = "LDS" if bits == 32 else f"LDS.{bits}"
    assert sum(1 for i in check.loop_instructions() if i.opcode == want) >= n > 0
    return dataclasses.replace(art, cubin=out), n


def main(argv=None) -> int:
    args = _args(argv, "lds_latency_experiment")
    art = compile_config(best_config(), "sm_90", backend="ptx")
    arts = {"full +pass": art, "LDS->NOP": with_nops(art, ("LDS",))[0]}
    for bits in (64, 32):
        arts[f"LDS.128 -> LDS.{bits}"], n = narrowed(art, bits)
        print(f"LDS.128 -> LDS.{bits}: {n} loads", flush=True)
    return interleaved(arts, args, "lds_latency.json")


if __name__ == "__main__":
    sys.exit(main())
