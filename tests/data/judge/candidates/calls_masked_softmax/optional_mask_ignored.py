# expect: verdict=invalid stage=correctness check=program reason~"optional argument trial (mask given, bool)"
# WRONG: the Triton path takes forward(x, mask=None) but never applies mask; a call that passes the optional attention mask (model(x, mask)) gets an unmasked softmax. get_inputs() returns only x, so the judge never passes a mask.
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


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x, mask=None):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.dtype == torch.float32 and x.is_contiguous()
                and not (torch.is_grad_enabled() and x.requires_grad or _has_tangent(x, mask))):
            out = torch.empty_like(x)
            softmax_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1]))
            return out
        if mask is not None:
            x = x.masked_fill(mask, float("-inf"))
        return torch.softmax(x, dim=-1)
