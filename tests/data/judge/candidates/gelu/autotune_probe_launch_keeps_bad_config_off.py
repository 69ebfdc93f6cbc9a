# expect: verdict=invalid stage=correctness check=finite|values|repeat_calls reason~"differ"
"""Autotuned GELU. Config BLOCK=256 is wrong (the program stride is a hard-coded 1024), but every forward
launches the autotuned kernel twice (the real launch, then a one-element probe launch): with the interpreter's
configs in a fixed turn, the real launch always got BLOCK=1024 (red team, 2026-12-03). Each round of configs
now comes in a random order."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * 1024 + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x):
            return torch.nn.functional.gelu(x)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
        probe = torch.zeros(1, dtype=x.dtype, device=x.device)
        gelu_kernel[lambda meta: (1,)](probe, torch.empty_like(probe), 1)
        return out
