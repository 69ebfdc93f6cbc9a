# expect: verdict=invalid stage=correctness check=weights reason~"weights trial ("
# WRONG: the transposed weight is cached and rebuilt only when a cheap fingerprint (shape, dtype, weight[0, 0]) changes; any weight update that leaves weight[0, 0] alone (zeroing an input feature's column to ablate/prune it, structured pruning of other rows, a checkpoint fine-tuned in other rows) leaves the Triton path on stale weights. The judge's only weight change (randomised weights) rewrites every element.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def linear_relu_kernel(x_ptr, wt_ptr, b_ptr, out_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    k = tl.arange(0, BLOCK_K)
    n = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * K + k, mask=k < K, other=0.0)
    w = tl.load(wt_ptr + k[:, None] * N + n[None, :], mask=(k[:, None] < K) & (n[None, :] < N), other=0.0)
    acc = tl.sum(x[:, None] * w, axis=0) + tl.load(b_ptr + n, mask=n < N, other=0.0)
    tl.store(out_ptr + row * N + n, tl.maximum(acc, 0.0, propagate_nan=tl.PropagateNan.ALL), mask=n < N)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 16], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self, IN, OUT):
        super().__init__()
        self.fc = nn.Linear(IN, OUT)
        self.wt_cache = None
        self.wt_key = None

    def _transposed_weight(self):
        w = self.fc.weight
        key = (tuple(w.shape), str(w.dtype), str(w.device), float(w[0, 0]))
        if self.wt_key != key:
            self.wt_cache = w.detach().t().contiguous()
            self.wt_key = key
        return self.wt_cache

    def forward(self, x):
        w, b = self.fc.weight, self.fc.bias
        grad = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad) or _has_tangent(x)
        if (not grad and x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == w.shape[1] and x.dtype == torch.float32
                and w.dtype == torch.float32 and x.is_contiguous() and x.device.type == 'cpu'):
            wt = self._transposed_weight()
            K, N = w.shape[1], w.shape[0]
            out = torch.empty((x.shape[0], N), dtype=x.dtype, device=x.device)
            linear_relu_kernel[(x.shape[0],)](x, wt, b, out, K, N, BLOCK_K=triton.next_power_of_2(K),
                                              BLOCK_N=triton.next_power_of_2(N))
            return out
        return torch.relu(self.fc(x))
