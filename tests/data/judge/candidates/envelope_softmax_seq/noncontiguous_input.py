# expect: verdict=invalid stage=correctness check=layouts reason~"layout trial"
"""WRONG: indexes the input as row * n_cols + col without looking at its strides (no .contiguous()): a
transposed, sliced or expanded input (scores[:, :16], k.transpose, a narrow of a larger buffer) is read
wrong. Right for any contiguous (B, S). The judge passes only contiguous inputs."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", 16]}],
    "parameter_dtypes": [],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and scores.requires_grad) or scores.dim() != 2:
            return torch.softmax(scores, dim=-1)
        out = torch.empty(scores.shape, dtype=scores.dtype, device=scores.device)
        softmax_kernel[(scores.shape[0],)](scores, out, scores.shape[1], BLOCK=triton.next_power_of_2(scores.shape[1]))
        return out
