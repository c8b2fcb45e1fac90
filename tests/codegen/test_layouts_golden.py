"""The default layouts (trans_a = trans_b = batched = False) emit byte-identical kernels.

The digests below were taken from the emitters BEFORE the layout flags existed (commit
e4ca0fe): every preset on both backends, split-K, stream-K and the sm_90 default kernels
(as default_sgemm_kernel chose them then, the edge split's kernel included).  A change to the
emitted text of these kernels is then a deliberate one: update the digest with a reason.  The PTX
texts are hashed without their PDL lines (session 7: family_cases.without_pdl).  The stream-K PTX
digests (three here, four of RANDOM) were retaken in session 10 for the fix-up as a tree
(codegen/ptx_streamk.py StreamKMixin.gather), and in session 11 for its one call site; in session 11 the
PTX digests of the "tile" guard (8 here, 3 of RANDOM) for one test and one branch over both operands' float4
loads (emit_ptx.both_float4).  Session 39 retook cuda:zorder-splitk4 and the 21 split-K CUDA C digests of RANDOM
for the partial kernel's griddepcontrol.wait (codegen/splitk.partial_pdl: the partial kernel launched programmatic).
"""
import hashlib

import pytest

from regtile.codegen.config import ConfigError, SgemmConfig
from regtile.codegen.emit import emit
from regtile.codegen.presets import PRESETS

from family_cases import without_pdl

GOLDEN = {
    "cuda:dbuf": "df0e28d159a831c3f1ce276f3e860830aa29e4de9eb7664082a25db25e727924",
    "cuda:naive": "27605d0d2f71ca66e03a680fb94b99c80fd3430a26dd6ed7aa91bcb588c12326",
    "cuda:pad": "d6f85165012655293887a1f38712887505171abeab015a30515c386f3cf95ad7",
    "cuda:smem": "8582758928cc8b2a1759a78985b3bc184375372cc103a277c60e3f1a7128ebdf",
    "cuda:tile1d": "4f42665ab4d87eea5f7585fcef7fd45b89313ccea2fb5a685ddc8404d4fe03a8",
    "cuda:tile2d": "15a73503d2f43426772ba8605ca8c5d8a19100cac9c65842a9f87a2733083b72",
    "cuda:tile2d-reg": "305f9703e284edf0edefffd7e69a0318e33cf9e6f69e43e149d36288162e708f",
    "cuda:vec4": "f0ce8c1a0391eb6c2326195262ef86cccc5f94bcd220f7fea09356285f2c70b7",
    "cuda:zorder": "eacb90bfafe04812f32f7c8797aaee971b9b9cc1309bd82e09b08d95b5755fa8",
    "cuda:zorder-256x128": "509349a69cbff1660e906c211df560e91fdd1f67c4bf9dbdce932860849d5962",
    "cuda:zorder-splitk4": "4b55eeba2598a9115fac7ca9acd3d4be7bace19915dd298339d4a4b44dc1618e",
    "ptx:dbuf": "402ed28b8bb6df9004a79c4cb45207e9d45afe3eef20e4d7950a0a49386a90d4",
    "ptx:default-4096": "407f3e84c0b5b34b37ae16884644b12fd0b2eed716c9646a24a676a7fe11c53e",
    "ptx:default-512": "0d89b2cf0b34528f57b1555de723a5a64a3dae2a61f8a1fe50603d96155c1de2",
    "ptx:naive": "523dc0fd37bd64d78f9d1f0bb5b78ca2c81794de26aedd3a71c855cf8b0d9a6f",
    "ptx:pad": "2130d24bfc0d309b04e00fd42b728e847cfac29012cc92bf192b9d5430e561f6",
    "ptx:smem": "41ba0c0693117cdcaafe9e373ec873892a644d84a0af3d55b40c80279225e66a",
    "ptx:tile1d": "c8ea003d17ca12e9bfd9d13c2c6df4866d45dc690c0f99c28a2ca5f7acd141d0",
    "ptx:tile2d-reg": "5f2720dccd5e1a8767162287967a6aae25434eddb377173d370d4fa527bc1de0",
    "ptx:vec4": "77bf95fe8c20b6010052388550704f28d347dffed7357e730be7f6ab9dd79297",
    "ptx:zorder": "5f07e1a61469b532862bb7e6972d6791cda89d192d481e3a3293ee6cd3641b60",
    "ptx:zorder-256x128": "d4df89e81726e13606a179ead593509f180c27875e689a259e49490d3a4da93f",
    "ptx:zorder-streamk": "39632c516a2f8b5ec698cb302361629ea7f8d1984fa8059d59bb15316b67fdd6",
}


def cases():
    out = {}
    for name, p in PRESETS.items():
        out[f"cuda:{name}"] = (p.config, "cuda")
        if p.config.frag_regs:
            out[f"ptx:{name}"] = (p.config, "ptx")
    z = PRESETS["zorder"].config
    out["cuda:zorder-splitk4"] = (z.replace(split_k=4), "cuda")
    out["ptx:zorder-streamk"] = (z.replace(stream_k=True), "ptx")
    # the sm_90 defaults of e4ca0fe (before the shape heuristic): 4096^2 and 512^2
    out["ptx:default-4096"] = (z.replace(bn=256, tn=16, min_blocks=1, sass_pass=True, stream_k=True,
                                         edge_split=True), "ptx")
    out["ptx:default-512"] = (z.replace(bm=64, bn=64, bk=16, warps=None, min_blocks=1, stream_k=True), "ptx")
    return out


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_default_layout_text_unchanged(key):
    cfg, backend = cases()[key]
    assert hashlib.sha256(without_pdl(emit(cfg, backend).text).encode()).hexdigest() == GOLDEN[key]


def test_every_case_has_a_digest():
    assert sorted(cases()) == sorted(GOLDEN)


# 48 configs drawn over the whole space (lab/register_sweep.draw(Random(23), 40), and stream-K
# variants of some), with the first 16 hex digits of their CUDA C and PTX text's sha256 from the
# code before the layout flags (None: the backend refuses the config).  One more, a 1x4 thread tile
# with split_k=2, was dropped in session 6: refused since (config.SPLIT_K_MIN_ACCUMULATORS).
RANDOM = [
    ({"a_transposed": False, "bk": 2, "bm": 64, "bn": 32, "ffma_order": "zigzag", "frag_regs": False, "mapping": "linear", "min_blocks": 2, "pad_a": 1, "pad_b": 4, "reg_prefetch": False, "split_tile": False, "stages": 1, "tm": 4, "tn": 16, "vec": 1, "warps": [1, 1]}, "71512ddf00cded39", None),
    ({"a_transposed": True, "bk": 16, "bm": 32, "bn": 64, "ffma_order": "rowmajor", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "split_k": 2, "split_tile": False, "stages": 2, "tm": 8, "tn": 4, "vec": 4, "warps": [2, 1]}, "e66df4faebd931bf", None),
    ({"a_transposed": True, "bk": 8, "bm": 32, "bn": 64, "ffma_order": "colzig", "frag_regs": True, "mapping": "zorder", "min_blocks": 1, "pad_a": 4, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_k": 3, "split_tile": False, "stages": 2, "tm": 8, "tn": 4, "vec": 4, "warps": [1, 2]}, "b8047781ca8a358d", None),
    ({"a_transposed": False, "bk": 2, "bm": 16, "bn": 16, "ffma_order": "zigzag", "frag_regs": False, "mapping": "linear", "min_blocks": 3, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_k": 8, "split_tile": False, "stages": 1, "tm": 8, "tn": 1, "vec": 1, "warps": [1, 1]}, "38f1e1219b9723ce", None),
    ({"a_transposed": False, "bk": 4, "bm": 32, "bn": 64, "ffma_order": "colzig", "frag_regs": True, "mapping": "linear", "min_blocks": 4, "pad_a": 0, "pad_b": 4, "reg_prefetch": True, "split_tile": True, "stages": 1, "tm": 4, "tn": 8, "vec": 1, "warps": [2, 1]}, "13d9e813321fb3bc", "628760f314c59a38"),
    ({"a_transposed": False, "bk": 4, "bm": 64, "bn": 64, "ffma_order": "rowmajor", "frag_regs": True, "mapping": "zorder", "min_blocks": 3, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "split_tile": False, "stages": 0, "tm": 16, "tn": 8, "vec": 1, "warps": [1, 1]}, "a0d164d3d20eefd5", "6ccd0df1e6bf54d7"),
    ({"a_transposed": True, "bk": 2, "bm": 64, "bn": 128, "ffma_order": "zigzag", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 4, "pad_b": 0, "reg_prefetch": False, "split_tile": False, "stages": 2, "tm": 4, "tn": 16, "vec": 1, "warps": [4, 1]}, "a39573a70671ea65", "edb23a6c2422f5a8"),
    ({"a_transposed": True, "bk": 2, "bm": 16, "bn": 32, "ffma_order": "zigzag", "frag_regs": False, "mapping": "linear", "min_blocks": 2, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "split_tile": False, "stages": 2, "tm": 1, "tn": 16, "vec": 1, "warps": [1, 1]}, "0b8932272f5ddc69", None),
    ({"a_transposed": True, "bk": 4, "bm": 128, "bn": 128, "ffma_order": "zigzag", "frag_regs": False, "mapping": "zorder", "min_blocks": 2, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_k": 4, "split_tile": False, "stages": 2, "tm": 8, "tn": 16, "vec": 1, "warps": [4, 1]}, "ad4e5bca83297339", None),
    ({"a_transposed": False, "bk": 4, "bm": 64, "bn": 32, "ffma_order": "colzig", "frag_regs": False, "mapping": "linear", "min_blocks": 4, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "split_tile": False, "stages": 2, "tm": 4, "tn": 8, "vec": 1, "warps": [2, 1]}, "b980394b41dab8c0", None),
    ({"a_transposed": False, "bk": 2, "bm": 32, "bn": 16, "ffma_order": "colzig", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 0, "pad_b": 0, "reg_prefetch": True, "sass_pass": True, "split_tile": False, "stages": 2, "tm": 1, "tn": 16, "vec": 1, "warps": [1, 1]}, "6d95a7fab1716559", "fe7e682fb6983c54"),
    ({"a_transposed": False, "bk": 1, "bm": 64, "bn": 64, "ffma_order": "colzig", "frag_regs": True, "mapping": "linear", "min_blocks": 3, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 1, "tm": 16, "tn": 4, "vec": 1, "warps": [2, 1]}, "39a6ae021e3546fe", "78a50a63c02e674b"),
    ({"a_transposed": False, "bk": 1, "bm": 64, "bn": 32, "ffma_order": "colzig", "frag_regs": False, "mapping": "zorder", "min_blocks": 3, "pad_a": 1, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 1, "tm": 16, "tn": 4, "vec": 1, "warps": [1, 1]}, "16e1177f4bb890b2", None),
    ({"a_transposed": True, "bk": 8, "bm": 128, "bn": 64, "ffma_order": "colzig", "frag_regs": True, "mapping": "zorder", "min_blocks": 1, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 2, "tm": 16, "tn": 8, "vec": 4, "warps": [2, 1]}, "3cda7b8844c6dcfe", "25039b16d4e25b39"),
    ({"a_transposed": True, "bk": 2, "bm": 64, "bn": 64, "ffma_order": "swirl", "frag_regs": True, "mapping": "zorder", "min_blocks": 1, "pad_a": 1, "pad_b": 4, "reg_prefetch": True, "split_k": 4, "split_tile": False, "stages": 2, "tm": 8, "tn": 4, "vec": 1, "warps": [4, 1]}, "783e26daac394e0c", None),
    ({"a_transposed": False, "bk": 8, "bm": 32, "bn": 16, "ffma_order": "rowmajor", "frag_regs": True, "mapping": "zorder", "min_blocks": 2, "pad_a": 0, "pad_b": 4, "reg_prefetch": True, "sass_pass": True, "split_tile": False, "stages": 2, "tm": 8, "tn": 1, "vec": 1, "warps": [2, 1]}, "8690a5d07e9bb836", "6df7da95ee5e4caa"),
    ({"a_transposed": False, "bk": 8, "bm": 32, "bn": 32, "ffma_order": "swirl", "frag_regs": False, "mapping": "linear", "min_blocks": 1, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 2, "tm": 1, "tn": 16, "vec": 1, "warps": [1, 2]}, "fc73977db427338c", None),
    ({"a_transposed": True, "bk": 2, "bm": 64, "bn": 16, "ffma_order": "colzig", "frag_regs": False, "mapping": "linear", "min_blocks": 1, "pad_a": 0, "pad_b": 4, "reg_prefetch": False, "split_k": 2, "split_tile": False, "stages": 2, "tm": 2, "tn": 16, "vec": 1, "warps": [1, 1]}, "3fc199bd92d64593", None),
    ({"a_transposed": False, "bk": 2, "bm": 128, "bn": 64, "ffma_order": "swirl", "frag_regs": True, "mapping": "linear", "min_blocks": 1, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "split_k": 3, "split_tile": True, "stages": 2, "tm": 8, "tn": 16, "vec": 1, "warps": [2, 1]}, "37de98e7472bd9a2", None),
    ({"a_transposed": True, "bk": 8, "bm": 16, "bn": 64, "ffma_order": "colzig", "frag_regs": False, "mapping": "zorder", "min_blocks": 4, "pad_a": 1, "pad_b": 0, "reg_prefetch": False, "split_tile": False, "stages": 1, "tm": 1, "tn": 8, "vec": 1, "warps": [2, 2]}, "7e4447f4a90554d5", None),
    ({"a_transposed": False, "bk": 2, "bm": 64, "bn": 64, "ffma_order": "colzig", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 1, "pad_b": 0, "reg_prefetch": True, "split_k": 8, "split_tile": True, "stages": 2, "tm": 8, "tn": 4, "vec": 1, "warps": [4, 1]}, "62804e29f75da75b", None),
    ({"a_transposed": False, "bk": 4, "bm": 64, "bn": 128, "ffma_order": "swirl", "frag_regs": False, "mapping": "linear", "min_blocks": 2, "pad_a": 0, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_k": 2, "split_tile": True, "stages": 2, "tm": 16, "tn": 4, "vec": 1, "warps": [4, 1]}, "5b49ebe1c638219c", None),
    ({"a_transposed": True, "bk": 4, "bm": 32, "bn": 128, "ffma_order": "zigzag", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 4, "pad_b": 4, "reg_prefetch": True, "split_k": 4, "split_tile": False, "stages": 2, "tm": 4, "tn": 8, "vec": 1, "warps": [4, 1]}, "3c458e2a0a87e5b6", None),
    ({"a_transposed": True, "bk": 8, "bm": 256, "bn": 64, "ffma_order": "zigzag", "frag_regs": True, "mapping": "linear", "min_blocks": 1, "pad_a": 0, "pad_b": 4, "reg_prefetch": True, "split_k": 8, "split_tile": False, "stages": 2, "tm": 8, "tn": 16, "vec": 4, "warps": [4, 1]}, "2c23197051251d33", None),
    ({"a_transposed": True, "bk": 1, "bm": 128, "bn": 128, "ffma_order": "zigzag", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 1, "pad_b": 0, "reg_prefetch": True, "split_k": 8, "split_tile": True, "stages": 1, "tm": 8, "tn": 16, "vec": 1, "warps": [4, 1]}, "04da9cc0cd121d60", None),
    ({"a_transposed": True, "bk": 2, "bm": 64, "bn": 64, "ffma_order": "rowmajor", "frag_regs": True, "mapping": "zorder", "min_blocks": 4, "pad_a": 0, "pad_b": 4, "reg_prefetch": False, "split_k": 3, "split_tile": False, "stages": 2, "tm": 4, "tn": 8, "vec": 1, "warps": [4, 1]}, "c530e5f3889161e6", None),
    ({"a_transposed": True, "bk": 8, "bm": 32, "bn": 16, "ffma_order": "zigzag", "frag_regs": True, "mapping": "zorder", "min_blocks": 4, "pad_a": 0, "pad_b": 4, "reg_prefetch": True, "sass_pass": True, "split_k": 8, "split_tile": False, "stages": 2, "tm": 2, "tn": 4, "vec": 1, "warps": [2, 1]}, "ce76f359435522e9", None),
    ({"a_transposed": True, "bk": 8, "bm": 64, "bn": 64, "ffma_order": "rowmajor", "frag_regs": False, "mapping": "linear", "min_blocks": 2, "pad_a": 0, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 2, "tm": 4, "tn": 8, "vec": 4, "warps": [4, 1]}, "fda3a1c980039645", None),
    ({"a_transposed": False, "bk": 4, "bm": 64, "bn": 256, "ffma_order": "zigzag", "frag_regs": True, "mapping": "zorder", "min_blocks": 1, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_k": 4, "split_tile": True, "stages": 2, "tm": 16, "tn": 4, "vec": 1, "warps": [1, 8]}, "e833e9bc88134af4", None),
    ({"a_transposed": False, "bk": 4, "bm": 32, "bn": 128, "ffma_order": "zigzag", "frag_regs": True, "mapping": "linear", "min_blocks": 3, "pad_a": 1, "pad_b": 4, "reg_prefetch": True, "split_k": 4, "split_tile": True, "stages": 1, "tm": 4, "tn": 8, "vec": 1, "warps": [4, 1]}, "1aecea80d29a9bae", None),
    ({"a_transposed": False, "bk": 4, "bm": 128, "bn": 32, "ffma_order": "zigzag", "frag_regs": True, "mapping": "zorder", "min_blocks": 2, "pad_a": 0, "pad_b": 4, "reg_prefetch": True, "sass_pass": True, "split_k": 2, "split_tile": False, "stages": 1, "tm": 2, "tn": 16, "vec": 1, "warps": [4, 1]}, "c9302a17da994692", None),
    ({"a_transposed": False, "bk": 2, "bm": 32, "bn": 32, "ffma_order": "zigzag", "frag_regs": True, "mapping": "zorder", "min_blocks": 4, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_tile": True, "stages": 1, "tm": 4, "tn": 8, "vec": 1, "warps": [1, 1]}, "ce2b7517752f0403", "add98dc2c8dfe635"),
    ({"a_transposed": True, "bk": 4, "bm": 64, "bn": 64, "ffma_order": "swirl", "frag_regs": False, "mapping": "zorder", "min_blocks": 1, "pad_a": 1, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_k": 3, "split_tile": False, "stages": 2, "tm": 16, "tn": 4, "vec": 1, "warps": [2, 1]}, "58e3c3d8c04a844d", None),
    ({"a_transposed": True, "bk": 8, "bm": 64, "bn": 16, "ffma_order": "rowmajor", "frag_regs": False, "mapping": "linear", "min_blocks": 2, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_k": 3, "split_tile": True, "stages": 2, "tm": 4, "tn": 8, "vec": 4, "warps": [1, 1]}, "54bd96ccb9cb4c5f", None),
    ({"a_transposed": True, "bk": 2, "bm": 32, "bn": 32, "ffma_order": "zigzag", "frag_regs": True, "mapping": "zorder", "min_blocks": 2, "pad_a": 4, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_k": 4, "split_tile": False, "stages": 1, "tm": 8, "tn": 2, "vec": 1, "warps": [2, 1]}, "cf9a3be514798854", None),
    ({"a_transposed": False, "bk": 2, "bm": 64, "bn": 32, "ffma_order": "swirl", "frag_regs": False, "mapping": "zorder", "min_blocks": 3, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_tile": True, "stages": 1, "tm": 8, "tn": 8, "vec": 1, "warps": [1, 1]}, "868402fe2929deb7", None),
    ({"a_transposed": True, "bk": 8, "bm": 64, "bn": 64, "ffma_order": "swirl", "frag_regs": True, "mapping": "zorder", "min_blocks": 3, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_k": 3, "split_tile": False, "stages": 2, "tm": 8, "tn": 8, "vec": 4, "warps": [2, 1]}, "850cbebe3af9ab66", None),
    ({"a_transposed": True, "bk": 4, "bm": 16, "bn": 32, "ffma_order": "colzig", "frag_regs": False, "mapping": "linear", "min_blocks": 3, "pad_a": 0, "pad_b": 4, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 1, "tm": 2, "tn": 8, "vec": 1, "warps": [1, 1]}, "cd50d77884d89bab", None),
    ({"a_transposed": False, "bk": 2, "bm": 16, "bn": 32, "ffma_order": "zigzag", "frag_regs": True, "mapping": "zorder", "min_blocks": 1, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "split_tile": False, "stages": 0, "tm": 4, "tn": 2, "vec": 1, "warps": [2, 1]}, "e810df08d2c59665", "c235efcf85654e85"),
    ({"a_transposed": False, "bk": 2, "bm": 64, "bn": 32, "ffma_order": "zigzag", "frag_regs": False, "mapping": "linear", "min_blocks": 2, "pad_a": 1, "pad_b": 4, "reg_prefetch": False, "split_tile": False, "stages": 1, "stream_k": True, "tm": 4, "tn": 16, "vec": 1, "warps": [1, 1]}, None, None),
    ({"a_transposed": True, "bk": 16, "bm": 32, "bn": 64, "ffma_order": "rowmajor", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "split_tile": False, "stages": 2, "stream_k": True, "tm": 8, "tn": 4, "vec": 4, "warps": [2, 1]}, None, "15874582f7e7d28f"),
    ({"a_transposed": True, "bk": 8, "bm": 32, "bn": 64, "ffma_order": "colzig", "frag_regs": True, "mapping": "zorder", "min_blocks": 1, "pad_a": 4, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 2, "stream_k": True, "tm": 8, "tn": 4, "vec": 4, "warps": [1, 2]}, None, "c5d126f83b701282"),
    ({"a_transposed": False, "bk": 2, "bm": 16, "bn": 16, "ffma_order": "zigzag", "frag_regs": False, "mapping": "linear", "min_blocks": 3, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 1, "stream_k": True, "tm": 8, "tn": 1, "vec": 1, "warps": [1, 1]}, None, None),
    ({"a_transposed": False, "bk": 4, "bm": 32, "bn": 64, "ffma_order": "colzig", "frag_regs": True, "mapping": "linear", "min_blocks": 4, "pad_a": 0, "pad_b": 4, "reg_prefetch": True, "split_tile": True, "stages": 1, "stream_k": True, "tm": 4, "tn": 8, "vec": 1, "warps": [2, 1]}, None, "b8e54dff61da22fc"),
    ({"a_transposed": True, "bk": 2, "bm": 64, "bn": 128, "ffma_order": "zigzag", "frag_regs": True, "mapping": "linear", "min_blocks": 2, "pad_a": 4, "pad_b": 0, "reg_prefetch": False, "split_tile": False, "stages": 2, "stream_k": True, "tm": 4, "tn": 16, "vec": 1, "warps": [4, 1]}, None, "fd15c998343713f8"),
    ({"a_transposed": True, "bk": 2, "bm": 16, "bn": 32, "ffma_order": "zigzag", "frag_regs": False, "mapping": "linear", "min_blocks": 2, "pad_a": 4, "pad_b": 4, "reg_prefetch": False, "split_tile": False, "stages": 2, "stream_k": True, "tm": 1, "tn": 16, "vec": 1, "warps": [1, 1]}, None, None),
    ({"a_transposed": True, "bk": 4, "bm": 128, "bn": 128, "ffma_order": "zigzag", "frag_regs": False, "mapping": "zorder", "min_blocks": 2, "pad_a": 0, "pad_b": 0, "reg_prefetch": False, "sass_pass": True, "split_tile": False, "stages": 2, "stream_k": True, "tm": 8, "tn": 16, "vec": 1, "warps": [4, 1]}, None, None),
]


def _digest(cfg, backend):
    try:
        return hashlib.sha256(without_pdl(emit(cfg, backend).text).encode()).hexdigest()[:16]
    except ConfigError:
        return None


@pytest.mark.parametrize("i", range(0, len(RANDOM), 8))
def test_random_configs_text_unchanged(i):
    for d, cuda, ptx in RANDOM[i:i + 8]:
        d = dict(d, warps=tuple(d["warps"]))
        cfg = SgemmConfig(**d)
        assert (_digest(cfg, "cuda"), _digest(cfg, "ptx")) == (cuda, ptx), d
