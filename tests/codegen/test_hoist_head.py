"""tile_config.hoist_head: the two-stage loop's head (stage offsets, k0, has_next) emitted before the loop and at
the end of each k-tile, before the back branch, instead of at the loop's top.  Whether the kernel computes the
same numbers is the GPU tests' job (every family member that takes it runs them); here, the text and the checks."""
import re

import pytest

from regtile.codegen.config import ConfigError
from regtile.codegen.emit import emit
from regtile.codegen.presets import FAMILY

HEAD = "// stage of tile kt\n"


def _loops(text):
    """[(lines before the label, lines from the label to the back branch)] of each two-stage k-loop."""
    out = []
    for m in re.finditer(r"^(\$L_ktile_\d+):$", text, re.M):
        label = m.group(1)
        end = text.index(f"bra.uni {label};", m.end())
        out.append((text[:m.start()], text[m.end():end]))
    return out


@pytest.mark.parametrize("hoist", [False, True])
def test_the_head_moves_to_the_end_of_the_k_tile(hoist):
    cfg = FAMILY["wide-128x256-noedge"].config.replace(hoist_head=hoist)
    loops = _loops(emit(cfg, "ptx").text)
    assert len(loops) == 2  # the main kernel's and the stream-K work list's
    for before, body in loops:
        first = body.index(HEAD)
        assert body.count(HEAD) == 1
        head_before = HEAD in "\n".join(before.splitlines()[-8:]) + "\n"
        if hoist:  # right before the loop, and after the last slice's FFMAs
            assert head_before and "fma.rn.f32" not in body[first:]
        else:  # at the top, before any FFMA
            assert not head_before and "fma.rn.f32" not in body[:first]


def test_the_members_that_take_it():
    """Measured per member (session 21): on where it ran faster."""
    on = sorted(name for name, m in FAMILY.items() if m.config.hoist_head)
    assert on == ["tall-256x128", "wide-128x256", "wide-128x256-noedge", "wide-64x256"]


def test_checks_name_the_field():
    with pytest.raises(ConfigError, match="hoist_head.*stages=1"):
        FAMILY["sq-64x64"].config.replace(stages=1, hoist_head=True)
    with pytest.raises(ConfigError, match="hoist_head=True: backend 'cuda'"):
        emit(FAMILY["cuda-zorder"].config.replace(hoist_head=True), "cuda")
