# expect: verdict=invalid stage=load check=signature reason~"ModelNew.forward(inp) does not take the reference's paramete"
# WRONG: forward's parameter is renamed (forward(self, inp) instead of forward(self, x)); positional calls work, but keyword calls -- model(x=x), HF-style **batch dicts, functional_call(model, params, kwargs=...) -- raise TypeError: forward() got an unexpected keyword argument 'x'. The judge only calls the module positionally.
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

    def forward(self, inp):
        if (inp.dim() == 2 and inp.shape[0] >= 2 and inp.dtype == torch.float32 and inp.is_contiguous()
                and not (torch.is_grad_enabled() and inp.requires_grad)):
            out = torch.empty_like(inp)
            softmax_kernel[(inp.shape[0],)](inp, out, inp.shape[1], inp.stride(0), BLOCK=triton.next_power_of_2(inp.shape[1]))
            return out
        return torch.softmax(inp, dim=-1)
