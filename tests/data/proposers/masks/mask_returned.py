"""A causal mask made from the input's size and returned as it is, beside a scaled input: the mask has no
tensor to read, so it stays a PyTorch call; the scaling is a kernel."""
import torch
import torch.nn as nn

rows, cols = 6, 8


class Model(nn.Module):
    def forward(self, x: torch.Tensor):
        t = x.size(-1)
        return x * 2.0, torch.ones(t, t, dtype=torch.bool, device=x.device).tril()


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
