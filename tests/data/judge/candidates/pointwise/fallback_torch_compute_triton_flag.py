# expect: verdict=invalid stage=correctness check=triton_launched reason~"launched no Triton kernel"
# xfail: known limitation (README, "What the judge checks"): a Triton kernel that only stores a 1.0 flag the output is multiplied by passes the skip-every-launch ablation (the output changes without it) while PyTorch does all the work
"""Hidden fallback that survives a trial with every Triton launch skipped: PyTorch computes the answer; the only
Triton kernel writes 1.0 into a one-element flag that the output is multiplied by. With launches skipped the flag
stays 0 and the output changes, so the kernel "matters", yet it computes nothing.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def set_flag_kernel(flag_ptr):
    tl.store(flag_ptr, 1.0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flag = torch.zeros(1, device=x.device, dtype=x.dtype)
        set_flag_kernel[(1,)](flag)
        return torch.relu(x * 2 + 1) * flag
