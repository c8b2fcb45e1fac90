"""Generated kernels: compile for sm_80 and sm_90 with no spills, and the SASS holds
what the config asks for (read from the real cubin)."""

import pytest
from compiled import CompiledPresets, assert_clean_build
from tiers import tiered

from regtile.codegen.config import SgemmConfig
from regtile.codegen.emit_cuda import emit_sgemm_cuda
from regtile.codegen.presets import get_preset, preset_names
from regtile.runtime.compiler import CompileError, compile_source
from regtile.runtime.sass import instruction_mix
from regtile.codegen.kernel import KernelSource

VEC4_AND_LATER = ("vec4", "dbuf", "pad", "zorder")


@pytest.fixture(scope="module")
def built():
    return CompiledPresets(emit_sgemm_cuda)


@pytest.mark.parametrize("name, arch", tiered([(n, a) for n in preset_names() for a in ("sm_80", "sm_90")],
                                              fast={("naive", "sm_80"), ("zorder", "sm_90"),
                                                    ("zorder-256x128", "sm_90")}))
def test_preset_compiles_without_spills(built, name, arch):
    src, art, _ = built[name, arch]
    assert_clean_build(src, art)


@pytest.mark.parametrize("name", tiered(VEC4_AND_LATER, fast={"vec4", "zorder"}))
def test_vec4_presets_use_128_bit_loads(built, name):
    _, _, func = built[name, "sm_90"]
    texts = [i.text for i in func.instructions]
    assert any(t.startswith("LDG.E.128") for t in texts)
    assert any(t.startswith("LDS.128") for t in texts)
    loop = instruction_mix(func.loop_instructions())
    assert loop.get("LDS.128", 0) > 0 and loop.get("LDS.32", 0) == 0


@pytest.mark.parametrize("name", tiered(["tile2d-reg", "tile1d", "smem"], fast={"tile1d"}))
def test_scalar_presets_have_no_vector_global_loads(built, name):
    # (ptxas may still merge neighbouring scalar shared loads into LDS.64/128 on its own)
    _, _, func = built[name, "sm_90"]
    assert not any(i.opcode.startswith("LDG.E.128") for i in func.instructions)


def test_zorder_main_loop_holds_one_k_tile_of_ffmas(built):
    cfg = get_preset("zorder").config
    _, _, func = built["zorder", "sm_90"]
    mix = instruction_mix(func.loop_instructions())
    assert mix["FFMA"] == cfg.bk * cfg.tm * cfg.tn == 512
    assert mix["BAR"] == 1  # double-buffered: one barrier per k-tile
    # 8 k-slices x (2 LDS.128 for A + 2 for B)
    assert mix["LDS.128"] == 32


def test_single_stage_kernels_have_two_barriers_per_ktile(built):
    _, _, func = built["vec4", "sm_90"]
    assert instruction_mix(func.loop_instructions())["BAR"] == 2


def test_emitted_cuda_writes_the_register_tile_out(built):
    src, _, _ = built["zorder", "sm_90"]
    text = src.text
    assert "float c0_0 = 0.f" in text and "c7_7" in text
    assert "a1_7" in text and "b1_7" in text  # double-buffered fragments
    assert text.count("fmaf(") == 8 * 64 + 0  # BK k-slices x TM*TN, unrolled by the generator
    assert "#pragma unroll" not in text
    assert "zorder" in text.split("*/")[0]  # header comment states the mapping


def test_compile_error_carries_log_and_failing_lines():
    bad = KernelSource("broken", "cuda", 'extern "C" __global__ void broken(float* x) {\n  x[0] = y;\n}\n',
                       emit_sgemm_cuda(get_preset("naive").config).geometry, ())
    with pytest.raises(CompileError) as e:
        compile_source(bad, "sm_90", use_cache=False)
    assert "identifier \"y\" is undefined" in e.value.log
    assert any("x[0] = y;" in line for line in e.value.failing_lines)


def test_unknown_arch_is_refused():
    from regtile.runtime.compiler import ArchError
    with pytest.raises(ArchError, match="sm_75"):
        compile_source(emit_sgemm_cuda(get_preset("naive").config), "sm_75")


def test_large_tile_config_compiles_with_dynamic_smem_over_48k():
    cfg = SgemmConfig(bm=128, bn=128, bk=32, tm=8, tn=8, vec=4, a_transposed=True, stages=2, pad_a=4)
    assert cfg.smem_bytes > 48 * 1024
    src = emit_sgemm_cuda(cfg)
    assert src.geometry.dynamic_smem_bytes == cfg.smem_bytes
    art = compile_source(src, "sm_90")
    assert art.resources.spill_free
