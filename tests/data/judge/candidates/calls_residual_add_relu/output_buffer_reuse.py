# expect: verdict=invalid stage=correctness check=repeat_calls reason~"An output the candidate returned changed when it was called "
# WRONG: outputs come from a ring of two preallocated buffers per shape ("double buffering"), so the third call overwrites the tensor returned by the first (a = model(x1); b = model(x2); c = model(x3) leaves a == c; preds.append(model(x)) in an eval loop, Siamese/contrastive pairs). The judge compares each call's outputs before the next call, so it never sees it.
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

    def __init__(self):
        super().__init__()
        self.workspace = {}

    def forward(self, x, y):
        grad = torch.is_grad_enabled() and (x.requires_grad or y.requires_grad)
        if (not grad and x.dim() == 2 and x.shape == y.shape and x.shape[0] >= 2 and x.shape[1] == 64
                and x.dtype == torch.float32 and y.dtype == torch.float32 and x.is_contiguous() and y.is_contiguous()):
            key = (tuple(x.shape), str(x.device))
            if key not in self.workspace:          # "avoid an allocation per call": two buffers, used in turn
                self.workspace[key] = [torch.empty_like(x), torch.empty_like(x), 0]
            ring = self.workspace[key]
            out = ring[ring[2]]
            ring[2] = 1 - ring[2]
            n = x.numel()
            add_relu_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
            return out
        return torch.relu(x + y)
