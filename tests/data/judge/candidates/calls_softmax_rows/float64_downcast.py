# expect: verdict=invalid stage=correctness check=dtypes reason~"float64 trial (float64 trial: output: dtype torch.float32, e"
# WRONG: the dispatch sends half and bfloat16 to the original forward but treats every other floating dtype as float32, and the kernel stores into a float32 output; model(x.double()) (float64 code, gradcheck-style numerics, scientific users) returns a float32 tensor with float32 rounding. The judge tries bfloat16 and float16, never float64.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < N, other=-float('inf')).to(tl.float32)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    tl.store(out_ptr + row * N + offs, e / tl.sum(e, axis=0), mask=offs < N)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        low = x.dtype == torch.float16 or x.dtype == torch.bfloat16
        if (x.dim() == 2 and x.shape[0] >= 2 and x.is_floating_point() and not low and x.is_contiguous()
                and not (torch.is_grad_enabled() and x.requires_grad or _has_tangent(x))):
            out = torch.empty(x.shape, dtype=torch.float32, device=x.device)
            softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1]))
            return out
        return torch.softmax(x, dim=-1)
