"""regtile.sass: the SASS toolchain, read from and written into real cubins; no GPU needed.

    isa        the instruction encoding: register fields, reuse flags, control codes (the one table)
    cubin      the cubin's ELF: per-kernel attributes (registers, stack frame), .text sections
    disasm     nvdisasm -> Instruction / SassFunction; the main loop; instruction mix
    fields     where each register operand of an instruction sits, proven by a probe rewrite
    banks      the register-bank model (calibrated on the H100) and its analysis of a main loop
    reorder    the FFMA order inside a main loop's runs
    scoreboards  the loop's global loads' read scoreboards, moved where the FFMAs do not wait on them
    preload    the next tile's first fragment loads, spread among the FFMAs after them
    bank_pass  the register-bank pass: reorder, rename, reuse flags, then scoreboards and preload; cubin in,
               cubin out

It imports nothing of regtile but regtile.errors.  The compile pipeline calls the pass
(runtime/sass_stage.py, from runtime/compiler.compile_source); the pass knows no compiler.
"""
