"""softmax and logsumexp over a middle dim (dim 1 of a 3-D tensor) with -inf entries (masked out)."""
import torch
import torch.nn as nn

shape = (2, 37, 9)


class Model(nn.Module):
    def forward(self, x: torch.Tensor, keep: torch.Tensor):
        y = x.masked_fill(~keep, float("-inf"))
        return torch.softmax(y, dim=1), torch.logsumexp(y, dim=1)


def get_inputs():
    keep = torch.rand(*shape) > 0.3
    keep[:, -1, :] = True                # no row is all -inf
    return [torch.randn(*shape), keep]


def get_init_inputs():
    return []
