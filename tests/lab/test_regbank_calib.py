"""The calibration cubins (CPU only): every variant's rewritten cubin disassembles with
nvdisasm to the intended FFMA registers and reuse flags, and nothing else changes."""
import json
import struct

import pytest

from regtile.lab import regbank_calib as calib
from regtile.lab import regbank_variants as rc
from regtile.sass import banks as reg_banks
from regtile.sass.disasm import function_of

# The calibration tool's variants take ~10 s to build: the whole file is the exhaustive tier.
pytestmark = pytest.mark.slow

SMALL = 256  # FFMAs per iteration in most tests (fast; a multiple of 32 for the 32-accumulator base)


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
    built = small[name]
    base = small["original32" if built.accs == 32 else "original"]
    _, func = function_of(built.cubin, rc.KERNEL)  # a fresh nvdisasm run on the rewritten cubin
    old, new = _loop_ffmas(base.func), _loop_ffmas(func)
    assert len(new) == len(old) == SMALL == len(built.intended)
    for idx, (o, n) in enumerate(zip(old, new)):
        ra, rb, rc_, flags = built.intended[o.offset]
        want = [("RZ" if r == rc.RZ else f"R{r}") + (".reuse" if f else "") for r, f in zip((ra, rb, rc_), flags)]
        assert n.operands[0] == o.operands[0]  # destination kept
        assert list(n.operands[1:4]) == want, (idx, n.text)
        assert n.hi >> 61 == o.hi >> 61 and (n.hi >> 8) & ((1 << 50) - 1) == (o.hi >> 8) & ((1 << 50) - 1)
    # everything that is not a loop FFMA is byte-identical
    changed = {i.offset for i in old}
    for o, n in zip(base.func.instructions, func.instructions):
        if o.offset not in changed:
            assert (o.lo, o.hi, o.text) == (n.lo, n.hi, n.text)
    assert reg_banks.analyze(func, "sm_90").mismatches == []


def test_context_free_tokens_resolve_to_the_read_only_pools(small):
    even, odd = rc.read_only_sources(small["original"].func)
    assert rc._resolve("E1", even, odd) == even[1] and rc._resolve("O0", even, odd) == odd[0]
    assert rc._resolve("RZ", even, odd) == rc.RZ
    with pytest.raises(rc.CalibError):
        rc._resolve("E99", even, odd)


def _slots(built):
    """(dest, a, b, c) of each loop FFMA, in order."""
    return [(rc._reg(i.operands[0]), *(rc._reg(o) for o in i.operands[1:4])) for i in _loop_ffmas(built.func)]


def test_accumulator_tokens(small):
    even, odd = rc.read_only_sources(small["original"].func)
    ro = set(even) | set(odd)
    # acc_e0e1: c is the FFMA's own destination, a and b fixed in bank 0
    for d, a, b, c in _slots(small["acc_e0e1"]):
        assert c == d and (a, b) == (even[0], even[1])
    # acc_same_a: a in the accumulator's bank, b in the other, no reuse
    for d, a, b, c in _slots(small["acc_same_a"]):
        assert c == d and a % 2 == d % 2 and b % 2 != d % 2 and {a, b} <= ro
    # w7 / w4: c is the destination of the FFMA 7 (4) positions earlier, never its own
    for name, dist, slot in (("w7_e0e1", 7, 3), ("w4_e0e1", 4, 3), ("w7a_e0e1", 7, 1)):
        rows = _slots(small[name])
        n = len(rows)
        for i, row in enumerate(rows):
            assert row[slot] == rows[(i - dist) % n][0] != row[0]
    # the 32-accumulator base: the own accumulator was written 32 FFMAs earlier
    b32 = small["acc32_e0e1"]
    assert b32.accs == 32 and b32.own_distance == (32, 32) and small["acc_e0e1"].own_distance == (8, 8)
    assert all(c == d for d, _, _, c in _slots(b32))


def test_w_tokens_respect_the_ffma_latency(small):
    func = small["original"].func
    ctx = rc._Ctx(func.loop_instructions(), rc.loop_ffmas(func), *rc.read_only_sources(func))
    assert ctx.written(10, 4) == ctx.dests[6]
    for d in (1, 2, 3):  # stall 1 per FFMA: fewer than 4 cycles after the write
        with pytest.raises(rc.CalibError, match="stall cycles"):
            ctx.written(10, d)
    with pytest.raises(rc.CalibError, match="own accumulator"):
        ctx.written(10, 8)


def test_ptxas_spaces_dependent_ffmas_by_the_latency_assumed():
    from regtile.codegen.kernel import KernelSource, LaunchGeometry
    from regtile.runtime.compiler import compile_source
    text = ('extern "C" __global__ void k(const float* in, float* out) { float c = in[threadIdx.x], '
            'x = in[1], y = in[2];\n#pragma unroll\nfor (int i = 0; i < 8; ++i) c = fmaf(c, x, y);\n'
            'out[threadIdx.x] = c; }')
    src = KernelSource("k", "cuda", text, LaunchGeometry((32, 1, 1), 1, 1, 0),
                       (("in", "const float*"), ("out", "float*")))
    _, func = function_of(compile_source(src, "sm_90", use_cache=False).cubin, "k")
    chain = [i for i in func.instructions if i.base == "FFMA"][:-1]
    assert len(chain) >= 6 and all((i.hi >> rc.CONTROL_SHIFT) & 0xF == rc.FFMA_LATENCY for i in chain)


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
    for name in ("bw_alt1", "bw_alt32", "acc_e0e1", "acc_same_a", "w7_e0e1", "w4_e0e1", "w7a_e0e1", "acc32_e0e1"):
        assert share[name]["sm_90"] == 1.0


def test_hypotheses_disagree_where_the_variants_were_built_to(small):
    p = {n: rc.predictions(b.func) for n, b in small.items()}
    # overlap: per-instruction cost 2, bank totals 1
    for name in ("bw_alt1", "bw_alt32"):
        assert p[name]["serial"] == 2.0 and p[name]["banks"] == 1.0
    # the accumulator set: counted reads give 2 + (share of tested reads in bank 0), free ones 2.0
    acc8 = 2 + sum(d % 2 == 0 for d, *_ in _slots(small["acc_e0e1"])) / SMALL
    assert p["acc_e0e1"]["banks"] == pytest.approx(acc8, abs=1e-3) and 2.3 < acc8 < 2.7
    assert p["acc_e0e1"]["banks+acc"] == p["acc_e0e1"]["banks+rec16"] == 2.0
    for name in ("w7_e0e1", "w4_e0e1", "w7a_e0e1"):
        assert p[name]["banks+acc"] == p[name]["banks"] > 2.3 and p[name]["banks+rec16"] == 2.0
    assert p["acc32_e0e1"]["banks+acc"] == 2.0 and p["acc32_e0e1"]["banks+rec16"] == p["acc32_e0e1"]["banks"] > 2.3
    assert p["acc_same_a"]["serial"] == 2.0 and p["acc_same_a"]["banks"] == 1.5 and p["acc_same_a"]["banks+acc"] == 1.0
    # the variants that all hypotheses agree on
    for name, want in (("none_rz", 1.0), ("two_ab", 2.0), ("three_even", 3.0)):
        assert len(set(p[name].values())) == 1 and p[name]["banks"] == want


def test_table_ranks_the_hypotheses():
    hyps = [h[0] for h in rc.HYPOTHESES]
    manifest = {"hypotheses": hyps, "variants": [
        {"name": "x", "question": "q", "first_ffma": "FFMA R1, R2, R3, R1", "accumulators": 8,
         "own_accumulator_written_ffmas_before": [8, 8],
         "predicted_cycles_per_ffma_per_smsp": {h: (1.5 if h == "banks" else 2.0) for h in hyps}}]}
    rows = [{"variant": "x", "makespan_cycles_per_ffma_per_smsp": 1.51, "event_cycles_per_ffma_per_smsp": 1.52,
             "issue_cycles_per_ffma_per_smsp": 1.09}]
    fit = calib._fit(rows, manifest)
    assert min(fit, key=fit.get) == "banks"
    text = calib._table(rows, manifest)
    assert "best fit: banks" in text and "makespan" in text and "own written 8 FFMAs before" in text


def test_manifest_and_cli(tmp_path, capsys):
    assert calib.main(["--out", str(tmp_path), "--ffmas", "64", "--variants", "original", "two_ab"]) == 0
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert [v["name"] for v in m["variants"]] == ["original", "two_ab"]
    assert (tmp_path / "two_ab.cubin").read_bytes()[:4] == b"\x7fELF"
    assert m["variants"][1]["predicted_conflict_share"]["sm_80"] == 0
    assert calib.main(["--out", str(tmp_path), "--variants", "nope"]) == 2


def test_default_size_kernel():
    built = rc.build_all(4096, names=["three_even", "alt_bank_reuse"])
    for b in built:
        assert len(_loop_ffmas(b.func)) == 4096 and len(b.intended) == 4096


def test_bad_sizes_are_refused():
    with pytest.raises(rc.CalibError):
        rc.kernel_source(100)
