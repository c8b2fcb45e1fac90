"""regtile.lab: the research programs behind committed results (docs/*.md cite them), each
runnable as `python3 -m regtile.lab.NAME --help` and smoke-tested (tests/lab/).

    regbank_calib      the register-bank calibration microbenchmark (docs/register-banks.md);
                       its kernel and variants: regbank_variants
    ncu_compare        the shared-memory bank model against Nsight Compute (docs/bank-conflicts.md)
    ncu_source         summary of an Nsight Compute source-page export (docs/sass-pass.md)
    register_sweep     the register rule's holdout sweep (docs/register-rule.md)

Installed with the package (as regtile.lab): the device machine, where regtile is
pip-installed from a copy of the tree, runs them by module name, and the tests import them
like any module; nothing in codegen, sass, runtime or tools imports them.

Not installed, beside them in this folder: experiments/, the one-off device experiments
whose JSON lies in docs/data (run from the repository root: `python3 -m lab.experiments.NAME`;
they keep the code as it ran, repetitions included), and device_runs/, the shell recipes
of a few device runs (docs/sanitizer.md, docs/tuning.md).
"""
