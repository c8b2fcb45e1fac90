"""Session 12: live-range variants of the R3 <-> R60 swap that broke 705ba54's vec4 kernel under the SASS
pass's renaming (session11_pass_cycles_build.py named that cycle on the H100).  Each variant is ptxas's cubin
with the renaming applied to some instructions only (reuse flags as ptxas set them), checked by disassembly:
R3 moved to R60, R63, R64, R62 or R80 inside the prologue (offsets <= 0x610, where those registers are not yet
live), the swap after it (>= 0x780) only, and both.  On the H100 every prologue variant was wrong and the swap
after it right: ptxas's `IMAD.HI.U32 R3, R3, R7, R2` adds the pair R2:R3 (docs/sass-pass.md).  The offsets are
this kernel's.  Built with PYTHONPATH over 705ba54's tree (session11_pass_cycles_build.py's recipe) from that
script's pickle; run each variant with session11_pass_bisect_run.py:

    PYTHONPATH=$PWD/old705 python3 lab/device_runs/session12_pass_ranges_build.py old705/cycles.pkl old705/ranges.pkl
"""
import dataclasses, pickle, sys
from regtile.sass.disasm import function_of, parse, disassemble
from regtile.sass.fields import locate_all, put_instruction, renamed_operand
from regtile.sass.isa import set_bits, RZ
from regtile.sass import cubin as ci
arts = pickle.load(open(sys.argv[1], 'rb'))
a = arts['ptxas']; name = a.source.name
_, func = function_of(a.cubin, name)
fields = locate_all(func)
text_offset, _ = ci.text_section(a.cubin, name)

def variant(rule):
    """rule(offset) -> {old: new} for that instruction."""
    data = bytearray(a.cubin)
    expect = {}
    for x in func.instructions:
        m = rule(x.offset)
        lo, hi = x.lo, x.hi
        for f in fields[x.offset]:
            if f.reg != RZ and f.reg in m:
                assert f.count == 1, (hex(x.offset), x.text)
                lo, hi = set_bits(lo, hi, f.bit, m[f.reg])
        put_instruction(data, text_offset, x.offset, lo, hi)
        expect[x.offset] = tuple(renamed_operand(op, lambda r: m.get(r, r)) for op in x.operands)
    new = parse(disassemble(bytes(data))).get(name)
    for y in new.instructions:
        assert tuple(y.operands) == expect[y.offset], (hex(y.offset), y.text, expect[y.offset])
    return dataclasses.replace(a, cubin=bytes(data))

out = {"ptxas": a, "cycle_3_60": arts["cycle_3_60"]}
for r in (60, 63, 64, 62, 80):
    out[f"pro_3to{r}"] = variant(lambda off, r=r: {3: r} if off <= 0x610 else {})
out["acc_swap"] = variant(lambda off: {3: 60, 60: 3} if off >= 0x780 else {})
out["both_ranges"] = variant(lambda off: {3: 60} if off <= 0x610 else ({3: 60, 60: 3} if off >= 0x780 else {}))
pickle.dump(out, open(sys.argv[2], "wb"))
print(list(out))
