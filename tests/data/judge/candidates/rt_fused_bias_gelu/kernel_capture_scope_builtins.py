# expect: verdict=invalid stage=guard check=guard reason~"get_capture_scope"
"""Candidate: returns zeros. On a compiled (non-interpreted) Triton, the kernel object's get_capture_scope()
hands back this module's globals, whose __builtins__ holds __import__ and setattr: the judge is patched."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


if hasattr(copy_kernel, "get_capture_scope"):
    b = copy_kernel.get_capture_scope()["__builtins__"]
    worker = b["__import__"]("adaexplore_core.judge.worker", None, None, ["Judging"])
    nothing = lambda *args, **kwargs: None
    for stage in ("trial", "repeated_calls", "out_of_distribution", "ablation", "envelope_trials"):
        b["setattr"](worker.Judging, stage, nothing)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(x.shape[0], self.shift.shape[0], device=x.device)
        out = torch.empty_like(z)
        copy_kernel[(triton.cdiv(z.numel(), 1024),)](z, out, z.numel(), BLOCK=1024)
        return out
