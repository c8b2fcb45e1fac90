"""Issue 8: what runs, is timed, tuned or written by `gen` is spill-free.  Validation's
register rules refuse every spill of the sweep they were fitted to (docs/register-rule.md);
a kernel ptxas spills anyway is refused at the compile stage with SpillError - shown by a
real kernel that ptxas spills (NVRTC, sm_90), not by made-up numbers."""
import dataclasses

import pytest

from regtile.codegen.kernel import KernelSource, LaunchGeometry
from regtile.codegen.presets import get_preset
from regtile.runtime import compiler
from regtile.runtime.compiler import SpillError, check_spill_free, compile_config, compile_source, spilled_bytes
from regtile.tools.cli import main

# 64 live accumulators under __launch_bounds__(1024, 2): ptxas may give it 32 registers.
_SPILLING = r'''
extern "C" __global__ void __launch_bounds__(1024, 2) spills(const float* x, float* y, int n) {
    float acc[64];
    #pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = x[j * n + threadIdx.x];
    for (int i = 0; i < n; ++i) {
        #pragma unroll
        for (int j = 0; j < 64; ++j) acc[j] = acc[j] * acc[(j + i) & 63] + x[i];
    }
    float s = 0.f;
    #pragma unroll
    for (int j = 0; j < 64; ++j) s += acc[j];
    y[threadIdx.x] = s;
}
'''


@pytest.fixture(scope="module")
def spilled_art():
    src = KernelSource("spills", "cuda", _SPILLING, LaunchGeometry((1024, 1, 1), 1, 1, 0),
                       (("x", "const float*"), ("y", "float*"), ("n", "int")))
    art = compile_source(src, "sm_90", use_cache=False)
    assert art.resources.registers <= 32 and not art.resources.spill_free, art.resources  # a real spill
    return art


def test_spilling_artifact_is_refused_with_its_numbers(spilled_art):
    with pytest.raises(SpillError) as e:
        check_spill_free(spilled_art)
    r = spilled_art.resources
    msg = str(e.value).splitlines()[0]
    assert f"{r.registers} registers" in msg and f"{r.spill_store_bytes} B spill stores" in msg
    assert "regtile does not run spilling kernels" in msg and spilled_bytes(spilled_art) > 0


def test_spill_free_preset_passes_and_compile_config_checks():
    cfg = get_preset("zorder").config
    art = compile_config(cfg, "sm_90")
    assert spilled_bytes(art) == 0 and check_spill_free(art, cfg) is art


def _as_config_kernel(spilled_art, monkeypatch, module):
    """compile_source returning the spilling cubin (as if ptxas had squeezed a config)."""
    def fake(src, arch="sm_90", use_cache=True):
        return dataclasses.replace(spilled_art, source=dataclasses.replace(src, text=src.text))
    monkeypatch.setattr(module, "compile_source", fake)


def test_compile_config_refuses_a_spilling_kernel_unless_allowed(spilled_art, monkeypatch):
    _as_config_kernel(spilled_art, monkeypatch, compiler)
    cfg = get_preset("zorder").config
    with pytest.raises(SpillError, match="validation estimated 128 registers against a cap of 128"):
        compile_config(cfg, "sm_90")
    assert not compile_config(cfg, "sm_90", allow_spills=True).resources.spill_free


def test_gen_refuses_a_spilling_kernel_inspect_shows_it(spilled_art, monkeypatch, tmp_path, capsys):
    from regtile.tools import artifacts
    _as_config_kernel(spilled_art, monkeypatch, artifacts)
    monkeypatch.setattr(artifacts._sass, "function_of", lambda cubin, name: ("", None))
    out = tmp_path / "k"
    assert main(["gen", "--preset", "zorder", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "spilled to local memory" in err and "--allow-spills" in err
    assert not out.exists() or not any(out.iterdir())  # nothing written
    built = artifacts.build("zorder", get_preset("zorder").config, "sm_90")  # inspect's call: allowed
    assert not built.artifact.resources.spill_free
