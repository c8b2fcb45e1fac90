"""The batched member (codegen/batch_choice.py): the picks session 45 measured, and the blocks an SM its model
assumes, read back from the real cubins' registers."""
import pytest
from tiers import tiered

from regtile.codegen import batch_choice as bc
from regtile.codegen import heuristic as h
from regtile.codegen import layouts
from regtile.codegen.presets import get_member

SMS = 132


@pytest.mark.parametrize("m, n, k, batch, trans_b, want", [
    # attention values P V (n = 64): the 128x128 tile ran it at 0.45x torch.bmm (half of each tile padding)
    (128, 64, 128, 384, False, "tall-128x64-k16"),
    (1024, 64, 1024, 96, False, "tall-128x64-k16"),
    # attention scores Q K^T: three k16 blocks an SM, in full waves
    (512, 512, 64, 96, True, "wide-64x128-k16"),
    (1500, 1500, 64, 48, True, "wide-64x128-k16"),
    # 77 x 77 outputs: a 64x128 tile pads 2.76x, beyond MAX_PAD once the whole batch's C is not small
    (77, 77, 64, 512, True, "plain-32x32"),
    (77, 64, 77, 512, False, "plain-32x64"),
    # decode (a query a head) and a few tokens an expert: the skinny tile of that side
    (1, 1024, 128, 256, True, "skinny-m16"),
    (16, 1408, 2048, 64, True, "skinny-m16"),
    (1024, 8, 128, 64, False, "skinny-n16"),
    # 128x256 blocks, one an SM, in fewer and fuller waves than the k16 tiles' (8 x 2 x 16 = 256 blocks: 2 waves of
    # 132 slots at 97%, against 1024 k16 blocks in 3 waves of 396 at 86%)
    (256, 4096, 14336, 8, True, "wide-128x256"),
])
def test_batched_member_as_measured(m, n, k, batch, trans_b, want):
    assert bc.batch_member(m, n, k, batch, SMS, trans_b) == want
    cfg, _ = bc.choose_batched(m, n, k, batch, "sm_90", SMS, trans_b=trans_b)  # the kernel a plan builds: that tile
    assert (cfg.bm, cfg.bn, cfg.batched) == (get_member(want).config.bm, get_member(want).config.bn, True)


def test_ragged_c_takes_only_tiles_that_keep_their_edge_clamp():
    """sq-128x128's batched form at two blocks an SM has no edge clamp (row-major B): on a ragged C it takes no part,
    where with B^T (one block an SM, the clamp kept) it does."""
    assert not layouts.with_layout(get_member("sq-128x128").config, False, False, batched=True).edge_clamp
    assert layouts.with_layout(get_member("sq-128x128").config, False, True, batched=True).edge_clamp
    assert bc._runs("sq-128x128", 4096, 77, False, True, h.MAX_PAD)
    assert not bc._runs("sq-128x128", 4096, 77, False, False, h.MAX_PAD)
    assert bc._runs("sq-128x128", 4096, 128, False, False, h.MAX_PAD)
    assert bc.batch_member(4096, 77, 40, 16, SMS, trans_b=False) != "sq-128x128"
    # every pick on a ragged C keeps its clamp
    for tb in (False, True):
        pick = get_member(bc.batch_member(4096, 77, 40, 16, SMS, trans_b=tb)).config
        assert layouts.with_layout(pick, False, tb, batched=True).edge_clamp
    assert bc.batch_member(4096, 128, 40, 16, SMS, trans_b=False) in {t[0] for t in bc.BATCH_TILES}  # whole tiles


def test_the_model_counts_waves_of_slots():
    """One more block than the slots hold costs a whole wave more; C's padding costs its area."""
    slots = 3 * SMS  # the k16 tiles: three blocks an SM
    full = bc.batch_time("wide-64x128-k16", 64, 128, 256, slots, SMS)
    assert bc.batch_time("wide-64x128-k16", 64, 128, 256, slots + 1, SMS) == pytest.approx(2 * full)
    assert bc.batch_time("wide-64x128-k16", 33, 65, 256, slots, SMS) == pytest.approx(full)
    # B^T takes sq-128x128 to one block an SM (with_layout's min_blocks=1): waves of half the slots, so a block past
    # two an SM costs a third more time there, where two an SM pay a whole wave of two (twice)
    nn, bt = (bc.batch_time("sq-128x128", 128, 128, 256, 2 * SMS + 1, SMS, trans_b=tb) for tb in (False, True))
    one = bc.batch_time("sq-128x128", 128, 128, 256, 2 * SMS, SMS)
    assert (nn, bt) == (pytest.approx(2 * one), pytest.approx(1.5 * one))


def _blocks_an_sm(cfg, art) -> int:
    """Resident blocks an SM on sm_90 by the cubin's registers (allocated 8 at a time, 65536 an SM) and the block's
    shared memory (228 KB an SM, 1 KB reserved a block)."""
    regs = -(-art.resources.registers // 8) * 8
    by_regs = 65536 // (regs * cfg.threads)
    smem = cfg.smem_bytes + art.resources.static_smem_bytes
    return min(by_regs, 228 * 1024 // (smem + 1024), 32)


@pytest.mark.parametrize("member, trans_b", tiered(
    [(t[0], tb) for t in bc.BATCH_TILES for tb in (False, True)],
    fast={("sq-128x128", False)}))  # the fast tier's cubin is the spill test's below (one compile for both)
def test_blocks_an_sm_agree_with_the_cubins(member, trans_b):
    """BATCH_TILES' blocks an SM are what the batched form's sm_90 cubin allows (registers and shared memory):
    the model's waves are the hardware's."""
    from regtile.runtime.compiler import compile_config
    mem = get_member(member)
    cfg = layouts.with_layout(mem.config, False, trans_b, batched=True)
    art = compile_config(cfg, "sm_90", backend=mem.backend)
    _, nn_blocks, bt_blocks, _ = next(t for t in bc.BATCH_TILES if t[0] == member)
    assert _blocks_an_sm(cfg, art) == (bt_blocks if trans_b else nn_blocks)


@pytest.mark.parametrize("member, layout", tiered(
    [(t[0], lay) for t in bc.BATCH_TILES for lay in ("NN", "NT", "TN", "TT")]
    + [(s, lay) for s in ("skinny-m16", "skinny-n16") for lay in ("NN", "NT", "TN", "TT")],
    fast={("sq-128x128", "NN")}))  # the one that spilled batched at min_blocks=2 (2026-11-25)
def test_batched_members_compile_without_spills_in_every_layout(member, layout):
    """What choose_batched can return builds spill-free: with_layout's batched form of each
    member (validation refuses what would spill, and with_layout then drops min_blocks)."""
    from regtile.runtime.compiler import compile_config
    m = get_member(member)
    cfg = layouts.with_layout(m.config, layout[0] == "T", layout[1] == "T", batched=True)
    art = compile_config(cfg, "sm_90", backend=m.backend)  # raises SpillError on a spill
    assert cfg.batched and art.resources.spill_free


@pytest.mark.parametrize("m, n, k, batch, want", [
    (1, 128, 1024, 256, 4),    # 256 blocks of 16 x 128: four splits reach four blocks an SM
    (8, 128, 4096, 64, 16),
    (8, 128, 2048, 32, 16),    # 32 would leave 4 k-tiles a split: 16
    (1, 128, 512, 512, 2),
    (1, 1024, 128, 256, 1),    # 2048 blocks already (q K^T)
    (16, 1408, 2048, 64, 1),
    (1, 300, 200, 5, 1),       # 13 k-tiles: no split keeps 8 a split
    (17, 128, 4096, 64, 1),    # not a skinny batch
])
def test_skinny_split_as_decided(m, n, k, batch, want):
    assert bc.skinny_split(m, n, k, batch, SMS) == want


def test_decode_batches_split_over_k_on_the_cuda_c_kernel():
    """choose_batched: decode's p V batch (m = 1, K = 1024) runs skinny-m16's tile split 4 ways over K through CUDA C,
    the partial kernel decoding entry and split from blockIdx.z, one reduce an entry."""
    from regtile.codegen.emit_cuda import emit_sgemm_cuda
    from regtile.codegen.kernel import SPLITK_BATCH_PARAMS, SPLITK_REDUCE_BATCH_PARAMS
    cfg, backend = bc.choose_batched(1, 128, 1024, 256, "sm_90", SMS)
    assert (backend, cfg.bm, cfg.bn, cfg.split_k, cfg.batched, cfg.stream_k) == ("cuda", 16, 128, 4, True, False)
    src = emit_sgemm_cuda(cfg)
    assert src.params[-2:] == SPLITK_BATCH_PARAMS
    assert "const int split = blockIdx.z % 4;" in src.text
    assert "A += (long long)(blockIdx.z / 4) * stride_a;" in src.text
    assert "float* const Wz = W + (size_t)blockIdx.z * M * N;" in src.text  # entry x 4 + split
    (role, reduce), = src.entries
    assert role == "reduce" and reduce.params[-1:] == SPLITK_REDUCE_BATCH_PARAMS
    assert "W += (size_t)blockIdx.z * 4 * M * N;" in reduce.text and "C += (long long)blockIdx.z * stride_c;" in reduce.text
    assert src.geometry.grid(1, 128, 256) == (1, 1, 1024)


@pytest.mark.parametrize("ta, tb", tiered([(a, b) for a in (False, True) for b in (False, True)],
                                          fast={(False, False)}))
def test_batched_split_compiles_in_every_layout(ta, tb):
    from regtile.runtime.compiler import compile_config
    cfg, backend = bc.split_config(8, ta, tb)
    art = compile_config(cfg, "sm_90", backend=backend)
    assert art.resources.spill_free and cfg.split_k == 8 and cfg.batched
