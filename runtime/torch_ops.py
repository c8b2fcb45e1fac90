"""regtile as a torch op: `regtile::mm`, with autograd, for eager mode and torch.compile.

    import regtile
    y = regtile.torch.mm(x, w)            # x @ w on torch's current stream
    y = regtile.torch.linear(x, W, bias)  # x @ W^T + bias, as torch.nn.functional.linear

Imported on demand (regtile.torch), so regtile installs and runs without torch.  The op
is a torch.library custom op: torch.compile treats it as one opaque node (its fake
implementation gives the output's shape), so a compiled model calls it without a graph
break.  The backward is two GEMMs on transposed views, dA = dC B^T and dB = A^T dC, which
regtile runs in place (op(A), op(B) = T are generated into the kernel), except where
regtile.sgemm's plan repacks operands with unaligned rows first (codegen/repack.py).
"""
from __future__ import annotations

import torch

from .arrays import in_place_layout
from .gemm import sgemm


def _usable(t: torch.Tensor) -> torch.Tensor:
    """`t` when regtile reads it in place (the operand parser's rule, arrays.in_place_layout),
    else a contiguous copy (an expanded gradient, a strided slice)."""
    return t if in_place_layout(*t.shape, *t.stride()) is not None else t.contiguous()


@torch.library.custom_op("regtile::mm", mutates_args=())
def _mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.dtype != torch.float32 or b.dtype != torch.float32:
        raise TypeError(f"regtile::mm takes float32 tensors, got {a.dtype} and {b.dtype}")
    out = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float32)
    sgemm(_usable(a), _usable(b), out)  # enqueued on torch's current stream
    return out


@_mm.register_fake
def _mm_fake(a, b):
    torch._check(a.shape[1] == b.shape[0], lambda: f"regtile::mm: {tuple(a.shape)} @ {tuple(b.shape)}")
    return a.new_empty((a.shape[0], b.shape[1]))


def _setup_context(ctx, inputs, output):
    a, b = inputs
    ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)


def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = _mm(grad, b.t()) if ctx.needs_input_grad[0] else None
    grad_b = _mm(a.t(), grad) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


_mm.register_autograd(_backward, setup_context=_setup_context)


def mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b (2-D float32 CUDA tensors) through regtile, differentiable."""
    return torch.ops.regtile.mm(a, b)


def linear(x: torch.Tensor, weight: torch.Tensor, bias=None) -> torch.Tensor:
    """x @ weight^T + bias over x's last dimension, as torch.nn.functional.linear;
    weight^T is a column-major view that regtile reads in place."""
    lead = x.shape[:-1]
    y = torch.ops.regtile.mm(x.reshape(-1, x.shape[-1]), weight.t())
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, weight.shape[0])
