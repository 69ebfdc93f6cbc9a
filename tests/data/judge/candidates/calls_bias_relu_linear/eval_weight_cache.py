# expect: verdict=invalid stage=correctness check=weights reason~"weights trial (eval mode, one column changed)"
# WRONG: in eval mode the transposed weight is cached until the next .train()/.eval() call; a model kept in eval whose weights change in place (an EMA/teacher/target network updated with p.mul_(0.99).add_(q, alpha=0.01), or load_state_dict while in eval) keeps computing with the old weights. The judge changes weights only in the default (train) mode, before any eval trial.
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

    def train(self, mode=True):
        self.wt_cache = None          # weights may change while training: drop the inference cache
        return super().train(mode)

    def forward(self, x):
        w, b = self.fc.weight, self.fc.bias
        grad = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad) or _has_tangent(x)
        if (not grad and x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == w.shape[1] and x.dtype == torch.float32
                and w.dtype == torch.float32 and x.is_contiguous() and x.device.type == 'cpu'):
            if self.training:
                wt = w.detach().t().contiguous()
            else:
                if self.wt_cache is None or self.wt_cache.device != w.device:
                    self.wt_cache = w.detach().t().contiguous()     # inference: weights are fixed
                wt = self.wt_cache
            K, N = w.shape[1], w.shape[0]
            out = torch.empty((x.shape[0], N), dtype=x.dtype, device=x.device)
            linear_relu_kernel[(x.shape[0],)](x, wt, b, out, K, N, BLOCK_K=triton.next_power_of_2(K),
                                              BLOCK_N=triton.next_power_of_2(N))
            return out
        return torch.relu(self.fc(x))
