"""tools/sanitize.py without a GPU (driver and workloads faked, kernels really emitted and
compiled): which kernels and sizes each device run launches, so that the sanitizer runs on
the device cover every preset, both backends, split-K, the shape-rule kernels, and sizes
where the float4 paths run."""
from types import SimpleNamespace

import pytest

from regtile.codegen.presets import preset_names, sgemv_preset_names
from regtile.runtime import bench, driver
from regtile.tools import sanitize


@pytest.fixture
def launched(monkeypatch):
    seen = []

    class Work:
        def __init__(self, *dims, sets=1):
            self.dims = dims

        def close(self):
            pass

    monkeypatch.setattr(driver, "device", lambda: SimpleNamespace(arch="sm_90", sm_count=132, name="Fake"))
    monkeypatch.setattr(driver, "load", lambda art, label=None: SimpleNamespace(art=art, label=label))
    monkeypatch.setattr(bench, "GemmWorkload", Work)
    monkeypatch.setattr(bench, "GemvWorkload", Work)
    monkeypatch.setattr(bench, "kernel_launcher", lambda kernel, work, a, b: (kernel, work))
    monkeypatch.setattr(bench, "gemv_kernel_launcher", lambda kernel, work, a, b, cfg: (kernel, work))

    def check(launch, work, a, b, repeat=0):
        kernel, w = launch
        assert kernel.art.resources.spill_free
        seen.append((kernel.label, kernel.art.source.language, kernel.art.source.reduce is not None, w.dims))
        return SimpleNamespace(ok=True)
    monkeypatch.setattr(bench, "check_and_time", check)
    monkeypatch.setattr(bench, "check_and_time_gemv", lambda *a, **k: check(*a, **k).__dict__)
    return seen


def _aligned(dims):
    return all(d % 4 == 0 for d in dims[1:])


@pytest.mark.slow
def test_cuda_run_covers_every_preset_at_small_and_aligned_edge_sizes(launched):
    assert sanitize.main(["--auto"]) == 0
    labels = {label for label, *_ in launched}
    assert set(preset_names()) | set(sgemv_preset_names()) <= labels
    for name in preset_names():
        sizes = [d for label, _, _, d in launched if label == name]
        assert len(sizes) == 7 and sum(map(_aligned, sizes)) == 3  # float4 rows at 3 of the 7 sizes
    autos = [(label, d) for label, _, _, d in launched if label == "sgemv-auto"]
    assert len(autos) == len(sanitize.SGEMV_SIZES + sanitize.SGEMV_EDGE_SIZES)


@pytest.mark.slow
def test_ptx_and_split_k_runs(launched, capsys):
    assert sanitize.main(["--backend", "ptx", "--auto", "--sizes", "edge"]) == 0
    langs = {lang for _, lang, _, _ in launched}
    assert langs == {"ptx"}
    labels = {label for label, *_ in launched}
    assert labels == (set(preset_names()) - {"tile2d"}) | {"sgemm-default"}
    launched.clear()
    assert sanitize.main(["--split-k", "3", "--sizes", "small", "--presets", "zorder,naive,tile1d,sgemv-n16"]) == 0
    assert {label for label, *_ in launched} == {"zorder", "tile1d"}  # SGEMV has no split-K
    assert "naive: skipped, split_k=3: a split-K kernel needs a thread tile of at least 8" in capsys.readouterr().out
    assert all(split for _, _, split, _ in launched)  # each launch is a partial kernel plus its reduction
