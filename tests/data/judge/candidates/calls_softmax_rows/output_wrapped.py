# expect: verdict=invalid stage=correctness check=output_structure reason~"The candidate's forward returns a tuple of 1 where the refer"
# WRONG: the Triton path returns a one-element tuple (out,) where the reference returns the tensor itself; the judge flattens both to [tensor] and compares, but user code model(x).sum() / model(x).shape raises AttributeError ('tuple' object has no attribute ...). (The fallback returns a plain tensor, so only Triton-path calls break.)
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < N, other=-float('inf'))
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    tl.store(out_ptr + row * N + offs, e / tl.sum(e, axis=0), mask=offs < N)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.dtype == torch.float32 and x.is_contiguous()
                and not (torch.is_grad_enabled() and x.requires_grad)):
            out = torch.empty_like(x)
            softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1]))
            return (out,)
        return torch.softmax(x, dim=-1)
