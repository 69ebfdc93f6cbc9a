# expect: verdict=invalid stage=correctness check=global_state reason~"The candidate's forward draws from torch's random number gen"
# WRONG: an "online autotuner" picks the block size for each call with torch.randint from the global RNG; outputs are right, but every call advances torch's default generator, so after torch.manual_seed(s) the program's later random draws (dropout masks, augmentations, sampling, torch.randn noise) differ from the unpatched program's: seeded runs are no longer reproducible against the original. The judge's global-state check does not cover the RNG state.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0, propagate_nan=tl.PropagateNan.ALL), mask=mask)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True},
                           {'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}
    BLOCKS = (256, 512, 1024)

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        grad = torch.is_grad_enabled() and (x.requires_grad or y.requires_grad)
        if (not grad and x.dim() == 2 and x.shape == y.shape and x.shape[0] >= 2 and x.shape[1] == 64
                and x.dtype == torch.float32 and y.dtype == torch.float32 and x.is_contiguous() and y.is_contiguous()):
            block = self.BLOCKS[int(torch.randint(0, 3, (1,)))]     # explore block sizes across calls
            out = torch.empty_like(x)
            n = x.numel()
            add_relu_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block)
            return out
        return torch.relu(x + y)
