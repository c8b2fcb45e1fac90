"""Hardware facts the generator and its analyses assume, each with its source.

One place for each: change a number here and both the emitter and the analyses
follow.
"""
from __future__ import annotations

# CUDA C Programming Guide, "Compute capabilities" table, sm_80..sm_90.
MAX_THREADS_PER_BLOCK = 1024
MAX_GRID_YZ = 65535  # gridDim.y and gridDim.z at most (gridDim.x: 2^31 - 1)
MAX_REGISTERS_PER_THREAD = 255
REGISTERS_PER_SM = 65536  # 64K 32-bit registers per SM, sm_80..sm_90
# sm_90: 227 KB of shared memory per block, opt-in above 48 KB (sm_80: 163 KB,
# sm_86/89: 99 KB; the driver refuses a larger launch there, the runtime says so).
MAX_SMEM_PER_BLOCK = 227 * 1024
DEFAULT_SMEM_PER_BLOCK = 48 * 1024
SMEM_LIMIT_BY_ARCH = {"sm_80": 163 * 1024, "sm_86": 99 * 1024, "sm_89": 99 * 1024, "sm_90": 227 * 1024}


def needs_smem_opt_in(static_bytes: int, dynamic_bytes: int) -> bool:
    """Must a launch raise MAX_DYNAMIC_SHARED_SIZE_BYTES?  The 48 KB a block gets without it count static and
    dynamic shared memory together (a 48 KB ring beside a static `__shared__ int` needs it)."""
    return static_bytes + dynamic_bytes > DEFAULT_SMEM_PER_BLOCK


SUPPORTED_ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90")


def arch_number(arch: str) -> int:
    """'sm_90' (or 'sm_90a') -> 90; 0 for a string of another form."""
    digits = "".join(ch for ch in str(arch).split("_")[-1] if ch.isdigit())
    return int(digits) if digits else 0


DEFAULT_ARCH = "sm_90"

# Shared memory (all of sm_80..sm_90): 32 banks, 4 bytes wide; bank = (byte address / 4) % 32.
# A warp request is served in "wavefronts"; within one wavefront each bank delivers one
# 4-byte word, and lanes reading the same word share it (broadcast).  How the widths split
# a warp (CUDA Programming Guide, "Shared memory" for 5.x+, and Nsight Compute's
# l1tex wavefront counters): 32-bit accesses form one group of 32 lanes; 64-bit accesses
# two half-warps; 128-bit accesses four quarter-warps, each group at least one wavefront.
SMEM_BANKS = 32
SMEM_BANK_BYTES = 4
SMEM_LANE_GROUPS = {4: 1, 8: 2, 16: 4}  # access bytes -> independent lane groups per warp
