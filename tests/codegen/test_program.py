"""The kernel program (codegen/program.py): one program per kernel, rendered by both backends.

The pinned texts (test_layouts_golden.py, test_family_golden.py) show that the renderers of the
program emit the kernels of before byte for byte; these tests show what the program decides
and that each renderer spells exactly that: the FFMA walk, the loop structure of each stage
count, the guards of the epilogue, the module's entries."""
import re

import pytest

from regtile.codegen import program as pg
from regtile.codegen.emit import emit
from regtile.codegen.emit_ptx import ffma_sequence
from regtile.codegen.kernel import KernelSource, LaunchGeometry
from regtile.codegen.plan import make_plan
from regtile.codegen.presets import FAMILY, PRESETS

_FMAF = re.compile(r"^\s*(\w+) = fmaf\((\w+), (\w+), \1\);", re.M)


def _ffmas(steps):
    return [op for s in pg.walk(steps) if isinstance(s, pg.Ffmas) for op in s.ops]


@pytest.mark.parametrize("name", ["naive", "tile2d-reg", "dbuf", "zorder", "vec4"])
def test_both_renderers_spell_the_programs_ffma_walk(name):
    cfg = PRESETS[name].config
    prog = pg.kernel_program(make_plan(cfg))
    walk = _ffmas(prog.main)
    assert len(walk) == (cfg.bk if cfg.stages else 1) * cfg.tm * cfg.tn
    assert _FMAF.findall(emit(cfg, "cuda").text) == walk
    assert [(d[1:], a[1:], b[1:]) for d, a, b, _ in ffma_sequence(emit(cfg, "ptx").text)] == walk


def test_the_loop_structure_follows_the_stages():
    z = PRESETS["zorder"].config
    kinds = {name: [type(x).__name__ for x in pg.kernel_program(make_plan(PRESETS[name].config)).main]
             for name in ("naive", "smem", "zorder")}
    assert kinds == {"naive": ["KLoop"], "smem": ["TileLoop"], "zorder": ["Pipeline"]}
    # stage 2 with register prefetch across tiles: slice 0 of tile kt+1 after the barrier,
    # the last slice's FFMAs behind it
    pipe = pg.kernel_program(make_plan(z)).main[0]
    loop = pipe.steps[-1]
    assert pg.crosses_tiles(z) and isinstance(loop, pg.TileLoop) and loop.stages == 2
    names = [type(x).__name__ for x in loop.steps]
    assert names[:4] == ["IfNext", "Compute", "IfNext", "Barrier"] and names[4] == "IfNext"
    assert isinstance(loop.steps[-1], pg.Ffmas) and loop.steps[-1].buffer == (z.bk - 1) % 2
    # without the crossing: no preload, no tail
    flat = pg.kernel_program(make_plan(z.replace(reg_prefetch=False))).main[0].steps[-1]
    assert [type(x).__name__ for x in flat.steps] == ["IfNext", "Compute", "IfNext", "Barrier"]


def test_epilogue_guards_and_groups():
    vec = pg.epilogue(make_plan(PRESETS["vec4"].config), "C")
    assert vec.vector and {len(g.accs) for row in vec.rows for g in row.groups} == {4}
    one = pg.epilogue(make_plan(PRESETS["tile2d-reg"].config), "C")
    assert not one.vector and {len(g.accs) for row in one.rows for g in row.groups} == {1}
    z = PRESETS["zorder"].config
    assert pg.kernel_program(make_plan(z.replace(split_k=2))).epilogue.target == "workspace"


def test_entry_programs_and_parameters():
    z = PRESETS["zorder"].config
    assert [(r, p.tiles, p.k_range) for r, p in pg.entry_programs(z)] == [("main", "grid", "all")]
    sk = pg.entry_programs(z.replace(stream_k=True))
    assert [(r, p.tiles, p.k_range) for r, p in sk] == [("main", "whole_tiles", "all"), ("ranges", "items", "item")]
    assert [n for n, _ in sk[1][1].params][-4:] == ["items", "starts", "flags", "partials"]
    assert isinstance(sk[1][1].main[0], pg.WorkItems)
    split = pg.kernel_program(make_plan(z.replace(split_k=3)))
    assert split.k_range == "split" and split.params == emit(z.replace(split_k=3)).params


def test_a_module_is_a_list_of_named_entries():
    src = emit(FAMILY["wide-128x256"].config, "ptx")
    assert [r for r, _ in src.kernels()] == ["main", "ranges", "edge", "edge/ranges"]
    assert src.ranges is src.entry("ranges") and src.edge.ranges is not None and src.reduce is None
    split = emit(PRESETS["zorder"].config.replace(split_k=2), "cuda")
    assert [r for r, _ in split.entries] == ["reduce"] and split.reduce.name in split.text
    geo = LaunchGeometry((32, 1, 1), 1, 1, 0)
    with pytest.raises(ValueError, match="role"):
        KernelSource("k", "cuda", "", geo, (), entries=(("tail", src),))
    with pytest.raises(ValueError, match="twice"):
        KernelSource("k", "cuda", "", geo, (), entries=(("reduce", split),), reduce=split)
