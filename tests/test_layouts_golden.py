"""The default layouts (trans_a = trans_b = batched = False) emit byte-identical kernels.

The digests below were taken from the emitters BEFORE the layout flags existed (commit
e4ca0fe): every preset on both backends, split-K, stream-K and the sm_90 default kernels
(runtime/gemm.py default_sgemm_kernel, the edge split's kernel included).  A change to the
emitted text of these kernels is then a deliberate one: update the digest with a reason.
"""
import hashlib

import pytest

from regtile.codegen.emit import emit
from regtile.codegen.presets import PRESETS
from regtile.runtime.gemm import default_sgemm_kernel

GOLDEN = {
    "cuda:dbuf": "df0e28d159a831c3f1ce276f3e860830aa29e4de9eb7664082a25db25e727924",
    "cuda:naive": "27605d0d2f71ca66e03a680fb94b99c80fd3430a26dd6ed7aa91bcb588c12326",
    "cuda:naive-splitk2": "3b232fdeafd5b5e2b7b6c6b16f01c1c36b00875f3487a46bfc6c7cc52a2417f5",
    "cuda:pad": "d6f85165012655293887a1f38712887505171abeab015a30515c386f3cf95ad7",
    "cuda:smem": "8582758928cc8b2a1759a78985b3bc184375372cc103a277c60e3f1a7128ebdf",
    "cuda:tile1d": "4f42665ab4d87eea5f7585fcef7fd45b89313ccea2fb5a685ddc8404d4fe03a8",
    "cuda:tile2d": "15a73503d2f43426772ba8605ca8c5d8a19100cac9c65842a9f87a2733083b72",
    "cuda:tile2d-reg": "305f9703e284edf0edefffd7e69a0318e33cf9e6f69e43e149d36288162e708f",
    "cuda:vec4": "f0ce8c1a0391eb6c2326195262ef86cccc5f94bcd220f7fea09356285f2c70b7",
    "cuda:zorder": "eacb90bfafe04812f32f7c8797aaee971b9b9cc1309bd82e09b08d95b5755fa8",
    "cuda:zorder-256x128": "509349a69cbff1660e906c211df560e91fdd1f67c4bf9dbdce932860849d5962",
    "cuda:zorder-splitk4": "3e523b988db5e612f6737ab616c03fc91056a437331f72bed7b37606fda5ac53",
    "ptx:dbuf": "950a0fbcd3564419f091c75c32a8332152bc025452a3559602700f6ab08315d2",
    "ptx:default-4096": "04336cb118b49fd46abf1691683e0f59a244cff6f9eb41e338c501624defeaa7",
    "ptx:default-512": "2fe5c018fc7ac5aea932a4d072069b90ea84a9bc1fb9bf1a04e1d358a8588082",
    "ptx:naive": "523dc0fd37bd64d78f9d1f0bb5b78ca2c81794de26aedd3a71c855cf8b0d9a6f",
    "ptx:pad": "0fe3b7f9d42c63b229b9f2201129a4a3ceadc7f1b859f9368798694c0c381230",
    "ptx:smem": "41ba0c0693117cdcaafe9e373ec873892a644d84a0af3d55b40c80279225e66a",
    "ptx:tile1d": "c8ea003d17ca12e9bfd9d13c2c6df4866d45dc690c0f99c28a2ca5f7acd141d0",
    "ptx:tile2d-reg": "5f2720dccd5e1a8767162287967a6aae25434eddb377173d370d4fa527bc1de0",
    "ptx:vec4": "4f0ab8ebe59b0aa7e33553cd337e79f002a089a149076a8567ee82dae5e479e5",
    "ptx:zorder": "b55a98a5f48e3886e80ba9c29407b494eaedcbb148d6ef1544827a5edfa5e4cb",
    "ptx:zorder-256x128": "8c76d0ea1627a8e910a2cb392d73560ac06bcf94003d1b43eeb2603b0b18ad5e",
    "ptx:zorder-streamk": "4f1a91ef207d89f4f68097db4b241d75df52824885b2b09dbd2d6f98e6dfae30",
}


def cases():
    out = {}
    for name, p in PRESETS.items():
        out[f"cuda:{name}"] = (p.config, "cuda")
        if p.config.frag_regs:
            out[f"ptx:{name}"] = (p.config, "ptx")
    z = PRESETS["zorder"].config
    out["cuda:zorder-splitk4"] = (z.replace(split_k=4), "cuda")
    out["cuda:naive-splitk2"] = (PRESETS["naive"].config.replace(split_k=2), "cuda")
    out["ptx:zorder-streamk"] = (z.replace(stream_k=True), "ptx")
    for shape in ((4096, 4096), (512, 512)):
        cfg, be = default_sgemm_kernel(*shape, "sm_90", 132)
        out[f"{be}:default-{shape[0]}"] = (cfg, be)
    return out


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_default_layout_text_unchanged(key):
    cfg, backend = cases()[key]
    assert hashlib.sha256(emit(cfg, backend).text.encode()).hexdigest() == GOLDEN[key]


def test_every_case_has_a_digest():
    assert sorted(cases()) == sorted(GOLDEN)
