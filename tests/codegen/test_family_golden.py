"""Every kernel of the shape family emits byte-identical text (tests/family_cases.py lists
them: each FAMILY member on both backends, split-K, plain, other layouts and batched).

The digests in family_golden.json were taken at d6f4611, before the emitters became renderers
of one kernel program (codegen/program.py): a change to one of these texts is then a
deliberate one (rewrite the JSON with the reason in the commit message, and show the SASS is
unchanged where only the text moved: docs/architecture.md).  Session 10 retook the 61 stream-K PTX
digests for the fix-up as a tree (codegen/ptx_streamk.py StreamKMixin.gather), session 11 for
the tree's one call site (_WorkItems: the first and the later pieces run the same gather) and the 9
unaligned-rows PTX digests for the vector floats' test ahead of the float4 path's
(emit_ptx.load_float4_or_edge), then 107 PTX digests for one test and one branch over both operands'
float4 loads (emit_ptx.both_float4).  Session 21 retook the 15 PTX digests of the 128x256, 256x128 and
64x256 members for their loop head hoisted to the k-tile before (tile_config.hoist_head).  Session 25 retook
`ptx:tall-128x64-k16:unaligned`: the case is what operand_forms.for_rows gives that member, now the float copies
held at 168 registers instead of the vector floats (a new config, not a changed emitter).  Session 28 retook the
105 PTX digests for the tiles across a ragged vector bound (ptx_edges.clamp_setup: clamped to the last vector
inside, the interior paths on k-tiles before line K - 1; both_float4 tests that alone, on both operands' rows'
alignment), then 8 stream-K unaligned-vectors digests for floats_setup building both float guards from one
negation (the sm_90 SASS of all 8 identical to the text before, read from the cubins).  Session 33 retook the 22
fusedk digests for the copies and fragment reads written through each operand's stage form (A_AT, B_AT, ROW: A^T
and B^T by float4) and added 33 for the fused members in NT, TN and TT: of the row-major members' sm_90 cubins at
three shapes each (30), 29 byte-identical to the text before, one (fused-32x32 at 512x32x4100) one LDS more and one
NOP fewer; of the ten members at split 1 and 4 with and without the lean copies (40, a review's check), 40; then the
30 layout digests again for the lean copies in each form.  Session 34 added the 5 of the new member fused-128x16, then retook the 44 fused split4 digests for a split's arrival
by a release / acquire RMW between two barriers instead of __threadfence around it (the texts the fused GPU tests
passed with at 741add2, 367 of 367; docs/data/session34/k_741add2).  Session 39 retook the 26 CUDA C split-K
digests for the partial kernel's griddepcontrol.wait ahead of its trigger (codegen/splitk.partial_pdl: the partial
kernel launched programmatic; the texts the split-K and PDL GPU tests passed with at 5ba4120, 138 of 138,
docs/data/session39/j_5ba4120).  Session 40 retook the 55 fused (fusedk) digests for the fused kernel's
griddepcontrol.wait at its entry (codegen/emit_fusedk.ENTRY: launched programmatic; the texts the fused, PDL, split-K
and API GPU tests passed with at c3b7fda, 603 of 603, docs/data/session40/e_c3b7fda)."""
import json
from pathlib import Path

import pytest

from family_cases import cases, digest
from tiers import tiered

GOLDEN = json.loads((Path(__file__).parent / "family_golden.json").read_text())
_FAST = {"ptx:wide-128x256", "cuda:splitk-64x64:split3", "ptx:sq-64x64:TN:batched", "cuda:cuda-zorder:TN",
         "ptx:tall-128x64:unaligned",
         "fusedk:fused-32x32:split4"}


def test_every_case_has_a_digest():
    assert sorted(cases()) == sorted(GOLDEN)


@pytest.mark.parametrize("key", tiered(sorted(GOLDEN), fast=_FAST))
def test_family_text_unchanged(key):
    assert digest(cases()[key]) == GOLDEN[key]
