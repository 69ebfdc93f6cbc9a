# expect: verdict=invalid stage=correctness check=settings reason~"settings trial (argument 1 changed)"
# WRONG: the Python float input alpha is baked into the kernel as the example's 0.5 and the dispatch never looks at it; model(x, 2.0) returns sigmoid(0.5 * x) + 1. The judge passes get_inputs()' non-tensor values through unchanged in every trial, so alpha is always 0.5.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def sigmoid_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.sigmoid(x * 0.5) + 1.0, mask=mask)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}, {'value': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x, alpha):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.dtype == torch.float32 and x.is_contiguous()
                and not (torch.is_grad_enabled() and x.requires_grad)):
            out = torch.empty_like(x)
            n = x.numel()
            sigmoid_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
            return out
        return torch.sigmoid(x * alpha) + 1.0
