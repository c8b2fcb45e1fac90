"""Repacking: where regtile.sgemm's plan copies operands whose rows are not 16-byte aligned into padded rows first,
and runs the GEMM for the padded leading dimensions (runtime/plans.GemmPlan launches the copy kernel, templates/
pack_rows.cu.j2, then the GEMM).  Pure: the rule, the copies' shapes and the copy kernel's config.

Why (H200, docs/shapes.md "Where it stands (session 43)" and docs/shapes-history.md, session 42): with rows not 16-byte
aligned every member reads the operands a float at a time (operand_forms.for_rows), 4-12% slower than the same GEMM on
aligned rows; worst where both operands' rows run along K (NT: A and B^T; TT's B^T), where cuBLAS's kernels are faster
than its NN one.  The copies move 8 (m + n) K bytes against the GEMM's 2 m n K flops, so they pay where
m n / (m + n) is large.  Padded: rows rounded up to 4 floats, plus 4 (the padding sessions 14 and 42 timed; it is
not chosen to avoid powers of two: K of 4089-4092 lands on 4096, and NT 4099x4093x4091's GEMM ran on such copies at
2659.5 us against 2930.5 in place, d_118489a / f_9be9b3f).

Measured, the plan against the same plan in place (lab/experiments/repack_rule_ab, docs/data/session42-43):
- NT (session 42, h_b1760f2): the 12 suite and held-out shapes of m n / (m + n) >= 1000 all faster, 2049x2047x1025
  0.850 -> 0.917x cuBLAS, 4001x4003x4007 0.888 -> 0.980; torch's copies took most of the gain back (f_8358846), this
  kernel runs 1.35-1.43x faster than torch's copy (g_ebbca21).
- TT (session 43, a_0eb71e7): 11 of its 12 such shapes 3.8-6.9% faster (2049x2047x1025 0.888 -> 0.924x, 4099x4093x4091
  0.968 -> 1.014), 2047x4097x1023 0.9% slower; B^T alone gained less.
- NN (a, b_6c5f2d8): 11 of 12 such shapes 0.9-4.9% faster (1234x5678x910 0.8% slower); A alone was slower than both.
- One copy launch for both operands (e_3f1e72b) in place of one an operand: 2049x2047x1025's copies 13.1 -> 10.4 us
  (f_9be9b3f), the plans 2-3 us faster on the small shapes.
- Below 1000 with it (f): NT and TT on 24 shape-layouts of 706-968 (the held-out sets' four, eight of the ragged
  fitting grids'), 22 faster by 0.9-7.4%, two slower by under 1%: their bound is 700.  NN there (d_118489a, two
  launches) lost on two of four (3.0%, 4.6%): 1000.  TT 999^3 (500) lost 4.9% (a).
- TN (its cp.async ring, session 37) lost on two of three shapes (2.3%, 4.7%; a): it runs in place.
- One operand alone (session 44, c_049e690; 28 shape-layouts of the held-out sets and the ragged fitting grids under
  the bounds above): copying B^T alone costs 1/m of the GEMM (both: 1/h).  TT and NT with m >= 3000: 7 of 9 faster by
  0.8-5.0% (NT 8191x511x2047 0.954 -> 0.994x cuBLAS, TT 8687x547x8689 1.041 -> 1.094), NT 6143x193x3075 the same, NT
  4343x274x2174 0.7% slower (n under 500: not taken); at m 2171 NT lost 1.6%.  NN's B alone was mixed (-5.3% to
  +1.8%), A alone (n >= 3000, eight shape-layouts) at most 0.5% faster and up to 1.2% slower: NN copies both or nothing.
The workspace holds the copies, 4 (m + n) (K + 4..7) bytes a stream for both in NT (68 MB at 8191x8193x1025; at most
REPACK_MAX_BYTES).  Measured on sm_90 only: other archs run in place."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from .config import ConfigError

# The copies' workspace, a stream, at most (both operands: 134 MB at the largest shapes measured, 4097^3 and
# 4099x4093x4091): the plan holds it for its life, outside torch's allocator, so a shape whose copies would take more
# runs in place.
REPACK_MAX_BYTES = 256 << 20
# The GEMM's multiply-adds, at least, for any copy: the copy launch costs a few microseconds whatever it moves
# (2049x2047x1025's one launch 10.4 us for 33.7 MB, session 43), which a GEMM of a few tens of microseconds does not win
# back.  Measured with the copies forced (session 44, e_3e64893): NT 12544x64x147 (1.2e8 multiply-adds, 11.7 us) 46%
# slower copying both, NT 1087x2173x71 (1.7e8) 19%, NT 2171x2175x137 (6.5e8, 48 us) 1.4%; TT 6143x1538x98 (9.3e8, 74 us)
# 4.7% faster, NT 1535x1539x769 (1.8e9) 1.6%, TT 4343x70x4347 (1.3e9, B alone) 0.5%.
REPACK_MIN_MACS = 800_000_000


@dataclass(frozen=True)
class RepackRule:
    """One way a layout repacks: the stored operands it copies ("A", "B" or "AB"; all of them must have unaligned
    rows), where the GEMM does at least `min_work` multiply-adds a copied float: m n K / ((m [A] + n [B]) K), which is
    m n / (m + n) for both operands, m for B alone, n for A alone (the copies' bytes against the GEMM's flops)."""
    operands: str
    min_work: int
    min_n: int = 0  # N at least (B^T alone: NT's n of 193 and 274, TT's 70, at most 0.5%; every gain had n >= 511)

    def __post_init__(self):
        if self.operands not in ("A", "B", "AB"):
            raise ConfigError(f"operands={self.operands!r}: the stored operands a rule copies, \"A\", \"B\" or \"AB\"")

    def work(self, m: int, n: int) -> float:
        """The GEMM's multiply-adds a float this rule copies, for M x N (x K: K cancels)."""
        return m * n / ((m if "A" in self.operands else 0) + (n if "B" in self.operands else 0))


# A layout's rules, tried in order; a layout not named runs in place (TN: its ring).  NN's bound is higher: there the
# unaligned kernels lose less to the aligned ones than in NT and TT, where B^T's K-long rows are read a float at a time
# (session 43, above).  NT and TT copy B^T alone where both cannot (session 44, c_049e690: B alone, m >= 3000 and
# n >= 500).
REPACK_RULES = {"NN": (RepackRule("AB", 1000),),
                "NT": (RepackRule("AB", 700), RepackRule("B", 3000, min_n=500)),
                "TT": (RepackRule("AB", 700), RepackRule("B", 3000, min_n=500))}


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
    """The copies regtile.sgemm's plan makes before the GEMM: those of the layout's first rule (REPACK_RULES) that
    applies, or None.  None where: not sm_90 (measured there only), a batch, fewer than REPACK_MIN_MACS
    multiply-adds, a layout REPACK_RULES does not name.  A rule does not apply where N is under its min_n, the GEMM's
    multiply-adds a copied float are under its min_work, one of its operands' rows are aligned (a leading dimension
    that is a multiple of 4 floats) or its copies take more than REPACK_MAX_BYTES."""
    if arch != "sm_90" or batch or min(m, n, k) < 1 or m * n * k < REPACK_MIN_MACS:
        return None
    (rows_a, len_a), (rows_b, len_b) = stored_rows(m, n, k, trans_a, trans_b)
    for rule in REPACK_RULES.get(("T" if trans_a else "N") + ("T" if trans_b else "N"), ()):
        if n < rule.min_n or rule.work(m, n) < rule.min_work:
            continue
        a = OperandCopy(rows_a, len_a, lda, padded(len_a)) if "A" in rule.operands else None
        b = OperandCopy(rows_b, len_b, ldb, padded(len_b)) if "B" in rule.operands else None
        copies = [c for c in (a, b) if c is not None]
        if all(c.ld % 4 for c in copies) and 4 * sum(c.floats for c in copies) <= REPACK_MAX_BYTES:
            return Repack(a, b)
    return None


def gemm_leading_dims(m: int, n: int, k: int, trans_a: bool, trans_b: bool, lda: int, ldb: int, batch: int = 0,
                      arch: str = "sm_90") -> Tuple[int, int]:
    """The (lda, ldb) the plan's GEMM runs with: the padded copies' where it repacks (repack_for), else the caller's."""
    repack = repack_for(m, n, k, trans_a, trans_b, lda, ldb, batch, arch)
    return repack.leading_dims(lda, ldb) if repack else (lda, ldb)
