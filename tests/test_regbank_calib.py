"""The calibration cubins (CPU only): every variant's rewritten cubin disassembles with
nvdisasm to the intended FFMA registers and reuse flags, and nothing else changes."""
import json
import struct

import pytest

from regtile.runtime import reg_banks
from regtile.runtime.sass import function_of
from regtile.tools import regbank_calib as rc

SMALL = 256  # FFMAs per iteration in most tests (fast); one test builds the default 4096


@pytest.fixture(scope="module")
def small():
    return {b.variant.name: b for b in rc.build_all(SMALL)}


def _loop_ffmas(func):
    return [i for i in func.loop_instructions() if i.base == "FFMA"]


def test_every_variant_is_built(small):
    assert list(small) == [v.name for v in rc.VARIANTS]


def test_the_encoding_assumption_holds_on_the_base_cubin(small):
    base = small["original"]
    ffmas = rc.loop_ffmas(base.func)  # raises unless Ra/Rb/Rc fields match the text on every FFMA
    assert len(ffmas) == SMALL
    assert reg_banks.analyze(base.func, "sm_90").mismatches == []
    sec_off, size = rc.text_section(base.cubin)
    first = ffmas[0]
    assert struct.unpack_from("<QQ", base.cubin, sec_off + first.offset) == (first.lo, first.hi)


def test_sources_are_read_only_and_split_by_bank(small):
    even, odd = rc.read_only_sources(small["original"].func)
    assert len(even) >= 3 and len(odd) >= 3
    loop = small["original"].func.loop_instructions()
    written = {rc._reg(i.operands[0]) for i in loop if i.operands}
    assert not (set(even) | set(odd)) & written


@pytest.mark.parametrize("name", [v.name for v in rc.VARIANTS if v.pattern is not None])
def test_variant_disassembles_to_the_intended_registers(small, name):
    base, built = small["original"], small[name]
    _, func = function_of(built.cubin, rc.KERNEL)  # a fresh nvdisasm run on the rewritten cubin
    even, odd = rc.read_only_sources(base.func)
    old, new = _loop_ffmas(base.func), _loop_ffmas(func)
    assert len(new) == len(old) == SMALL
    for idx, (o, n) in enumerate(zip(old, new)):
        a, b, c, reuse = built.variant.pattern(idx)
        regs = [rc._resolve(x, even, odd) for x in (a, b, c)]
        want = [("RZ" if r == rc.RZ else f"R{r}") + (".reuse" if s in reuse and r != rc.RZ else "")
                for s, r in zip("abc", regs)]
        assert n.operands[0] == o.operands[0]  # destination kept
        assert list(n.operands[1:4]) == want, (idx, n.text)
        assert n.hi >> 61 == o.hi >> 61 and (n.hi >> 8) & ((1 << 50) - 1) == (o.hi >> 8) & ((1 << 50) - 1)
    # everything that is not a loop FFMA is byte-identical
    changed = {i.offset for i in old}
    for o, n in zip(base.func.instructions, func.instructions):
        if o.offset not in changed:
            assert (o.lo, o.hi, o.text) == (n.lo, n.hi, n.text)
    assert reg_banks.analyze(func, "sm_90").mismatches == []


def test_bank_patterns_as_the_models_see_them(small):
    share = {n: {a: reg_banks.analyze(b.func, a).conflict_share for a in ("sm_80", "sm_90")}
             for n, b in small.items()}
    for name in ("three_even", "three_odd"):
        assert share[name] == {"sm_80": 1.0, "sm_90": 1.0}
    # (the first FFMA after the loop label finds the reuse cache empty: one FFMA in SMALL)
    for name in ("two_ab", "two_ac", "two_bc", "three_even_reuse_a", "alt_same_bank_reuse"):
        assert share[name]["sm_80"] <= 1.0 / SMALL and share[name]["sm_90"] == 1.0
    for name in ("none_rz", "none_dup", "three_even_reuse_ab", "three_even_reuse_abc", "two_ab_reuse_a",
                 "alt_bank_reuse"):
        assert share[name]["sm_90"] <= 1.0 / SMALL + 1e-9


def test_manifest_and_cli(tmp_path, capsys):
    assert rc.main(["--out", str(tmp_path), "--ffmas", "64", "--variants", "original", "two_ab"]) == 0
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert [v["name"] for v in m["variants"]] == ["original", "two_ab"]
    assert (tmp_path / "two_ab.cubin").read_bytes()[:4] == b"\x7fELF"
    assert m["variants"][1]["predicted_conflict_share"]["sm_80"] == 0
    assert rc.main(["--out", str(tmp_path), "--variants", "nope"]) == 2


def test_default_size_kernel():
    built = rc.build_all(4096, names=["three_even", "alt_bank_reuse"])
    for b in built:
        assert len(_loop_ffmas(b.func)) == 4096 and len(b.intended) == 4096


def test_bad_sizes_are_refused():
    with pytest.raises(rc.CalibError):
        rc.kernel_source(100)
