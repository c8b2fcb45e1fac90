"""runtime/compiler.compile_many, the sweeps' parallel precompile: each (config, backend) compiled
into the kernel cache by spawned processes, its error (or None) returned in the order given."""
from regtile.codegen.presets import get_preset
from regtile.codegen.sgemv_config import choose_gemv
from regtile.runtime import compiler


def test_compiles_into_the_cache_and_reports_each_error():
    gemv = choose_gemv(4096, 4096, "T", 132)[0].replace(unroll=3)  # a config no other test compiles
    naive = get_preset("naive").config
    errs = compiler.compile_many([(gemv, "cuda"), (naive, "fusedk"), (naive, "cuda")], "sm_90", workers=2)
    assert errs[0] is None and errs[2] is None
    assert errs[1] is not None and "fusedk" in errs[1]
    # compiled by the workers: this process finds it in the disk cache
    assert compiler.compile_config(gemv, "sm_90").from_cache
    assert compiler.compile_many([], "sm_90") == []
