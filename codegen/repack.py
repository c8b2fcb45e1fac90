"""Repacking: where regtile.sgemm's plan copies operands whose rows are not 16-byte aligned into padded rows first,
and runs the GEMM for the padded leading dimensions (runtime/plans.GemmPlan launches the copies, templates/
pack_rows.cu.j2's kernel, then the GEMM).  Pure: the rule, the copies' shapes and the copy kernel's config.

Measured (H200, session 42, docs/data/session42): in NT both operands' rows run along K, and with K % 4 != 0 every
member copies them a float at a time (operand_forms.for_rows), 5-15% slower than on aligned rows, where cuBLAS's NT
kernels are faster than its NN one.  On 11 such NT shapes below cuBLAS the GEMM on padded copies (rows rounded up to
4 floats, plus 4: a power-of-two leading dimension had a cliff, session 14) ran 4-12% faster than the plan on the
unaligned rows, and torch's strided copies (18-100 us, about 2.65 TB/s read + written) took most of that back
(f_8358846: 7 of 11 faster, none at cuBLAS); the copy kernel here ran 1.35-1.43x faster than torch's (g_ebbca21,
pack_copy_speed: 33.8 against 48.3 us for 4001x4007).  The copies move 8 (m + n) K bytes against 2 m n K flops, so
they pay where m n / (m + n) is large: the three shapes below 1000 (481-833) ran slower repacked.  Through
regtile.sgemm (h_b1760f2, us, x cuBLAS's NT in the same run, against the plans on the unaligned rows in session 41 /
42's sweeps), all 12 suite and held-out shapes the rule takes ran faster: 2049x2047x1025 214.6 -> 198.8 (0.850 ->
0.917), 4099x4093x4091 2923.6 -> 2724.7 (0.922 -> 0.964), 8191x8193x1025 2964.6 -> 2776.8 (0.959 -> 0.999),
6143x2047x3071 1705.0 -> 1556.8 (0.924 -> 0.977), 4097^3 2989.8 -> 2799.1 (1.121 -> 1.169); held-out 4001x4003x4007
0.888 -> 0.980, 4095^3 0.964 -> 1.007, 1919x2929x3939 0.926 -> 1.003, 2999x7001x211 0.986 -> 1.022, 3333x2222x1111
0.911 -> 0.942, 2047x4097x1023 0.912 -> 0.942, 1234x5678x910 1.111 -> 1.141.

Session 43 (docs/data/session43/a_0eb71e7, lab/experiments/repack_rule_ab: the plan with this copy kernel against the
plan in place, in one run): TT (A^T's rows along M, B^T's along K) on its 12 suite and held-out shapes with both rows
unaligned and m n / (m + n) >= 1000, copying both ran 3.8-6.9% faster on 11 (2049x2047x1025 0.888 -> 0.924x cuBLAS,
4001x4003x4007 0.969 -> 1.035, 4099x4093x4091 0.968 -> 1.014, 6143x2047x3071 0.984 -> 1.039, 3333x2222x1111 0.940 ->
1.004) and 0.9% slower on 2047x4097x1023; copying B^T alone gained less on all but 6143x2047x3071.  Below 1000 it was
mixed (1111x3333x2222 +5.8%, 1023x4095x2047 -1.1%, 999^3 -4.9%).  NN: both copied ran 0.9-4.9% faster on the four
shapes tried (A alone slower on three: B's N-long rows count too).  TN (its ring): 1.8% faster on 2049x2047x1025, 2.2% and
4.7% slower on 8191x8193x1025 and 6143x2047x3071 (session 42 with torch's copies: slower on both): it runs in place.
The workspace holds both copies, 4 (m + n) (K + 4..7) bytes a stream in NT (68 MB at 8191x8193x1025; at most
REPACK_MAX_BYTES).  Measured on sm_90 only: other archs run in place."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from .config import ConfigError

REPACK_MIN_HARMONIC = 1000  # m n / (m + n) at least this (see above)
# The copies' workspace, a stream, at most (both operands: 128 MB at the largest shape measured, 4001x4003x4007): the
# plan holds it for its life, outside torch's allocator, so a shape whose copies would take more runs in place.
REPACK_MAX_BYTES = 256 << 20
# Which operands a layout copies ("A", "B" or both), each only where its stored rows are unaligned; a layout not named
# runs in place.  All the named operands' rows must be unaligned for the plan to repack (measured with both).
REPACK_OPERANDS = {"NN": "AB", "NT": "AB", "TT": "AB"}


def padded(length: int) -> int:
    """A copy's leading dimension for rows `length` floats long: rounded up to 4 floats, plus 4."""
    return -(-length // 4) * 4 + 4


@dataclass(frozen=True)
class PackConfig:
    """The copy kernel (templates/pack_rows.cu.j2): one launch copies both operands, a block 4 * `threads` floats of
    one padded row, a thread one float4 (its source read a float at a time, the padding written as zeros)."""
    threads: int = 128

    def __post_init__(self):
        if self.threads % 32 or not 32 <= self.threads <= 1024:
            raise ConfigError(f"threads={self.threads}: a multiple of 32 from 32 to 1024")

    def describe(self) -> str:
        return f"pack rows: {self.threads} threads a block, a padded float4 a thread"


@dataclass(frozen=True)
class OperandCopy:
    """One operand as stored (`rows` rows of `length` floats, leading dimension `ld`) and its copy's `padded_ld`."""
    rows: int
    length: int
    ld: int
    padded_ld: int

    @property
    def floats(self) -> int:
        return self.rows * self.padded_ld

    def chunks(self, cfg: PackConfig) -> int:
        """The copy kernel's blocks a row."""
        return -(-self.padded_ld // (4 * cfg.threads))


@dataclass(frozen=True)
class Repack:
    """The copies a plan makes before its GEMM: A's and B's (None: that operand is read in place)."""
    a: Optional[OperandCopy]
    b: Optional[OperandCopy]

    def leading_dims(self, lda: int, ldb: int) -> Tuple[int, int]:
        """The GEMM's (lda, ldb): the copies' where copied."""
        return (self.a.padded_ld if self.a else lda), (self.b.padded_ld if self.b else ldb)

    def grid(self, cfg: PackConfig) -> Tuple[int, int, int]:
        """The copy kernel's grid: a block for each chunk of each copied row, A's first."""
        return sum(op.rows * op.chunks(cfg) for op in (self.a, self.b) if op), 1, 1

    def args(self, cfg: PackConfig, dst_a: int, dst_b: int) -> tuple:
        """The copy kernel's arguments (codegen/emit_pack.PACK_PARAMS) with the copies at dst_a / dst_b (device
        pointers) and the operands' pointers 0 (per call: the plan's launch fills SA / SB); an operand not copied
        has no rows."""
        args = ()
        for op, dst in ((self.a, dst_a), (self.b, dst_b)):
            args += (0, dst, op.rows, op.length, op.ld, op.padded_ld, op.chunks(cfg)) if op else (0, 0, 0, 0, 0, 4, 1)
        return args

    def describe(self) -> str:
        names = " and ".join(name for name, c in (("A", self.a), ("B", self.b)) if c)
        lds = ", ".join(f"{name} {c.ld} -> {c.padded_ld}" for name, c in (("lda", self.a), ("ldb", self.b)) if c)
        return f"{names} repacked into padded rows first ({lds})"


def stored_rows(m: int, n: int, k: int, trans_a: bool, trans_b: bool) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    """((rows, length) of A as stored, (rows, length) of B): A's rows run along K, or along M where op(A) = A^T; B's
    along N, or along K where op(B) = B^T."""
    return ((k, m) if trans_a else (m, k)), ((n, k) if trans_b else (k, n))


def repack_for(m: int, n: int, k: int, trans_a: bool, trans_b: bool, lda: int, ldb: int, batch: int = 0,
               arch: str = "sm_90") -> Optional[Repack]:
    """The copies regtile.sgemm's plan makes before the GEMM, or None: not sm_90 (measured there only), a layout
    REPACK_OPERANDS does not name, a batch, one of the named operands' rows aligned (its leading dimension a multiple
    of 4 floats), m n / (m + n) below REPACK_MIN_HARMONIC, or copies of more than REPACK_MAX_BYTES."""
    which = REPACK_OPERANDS.get(("T" if trans_a else "N") + ("T" if trans_b else "N"), "")
    if arch != "sm_90" or batch or not which or k < 1 or m * n < REPACK_MIN_HARMONIC * (m + n):
        return None
    (rows_a, len_a), (rows_b, len_b) = stored_rows(m, n, k, trans_a, trans_b)
    a = OperandCopy(rows_a, len_a, lda, padded(len_a)) if "A" in which else None
    b = OperandCopy(rows_b, len_b, ldb, padded(len_b)) if "B" in which else None
    copies = [c for c in (a, b) if c is not None]
    if any(c.ld % 4 == 0 for c in copies) or 4 * sum(c.floats for c in copies) > REPACK_MAX_BYTES:
        return None
    return Repack(a, b)


def gemm_leading_dims(m: int, n: int, k: int, trans_a: bool, trans_b: bool, lda: int, ldb: int, batch: int = 0,
                      arch: str = "sm_90") -> Tuple[int, int]:
    """The (lda, ldb) the plan's GEMM runs with: the padded copies' where it repacks (repack_for), else the caller's."""
    repack = repack_for(m, n, k, trans_a, trans_b, lda, ldb, batch, arch)
    return repack.leading_dims(lda, ldb) if repack else (lda, ldb)
