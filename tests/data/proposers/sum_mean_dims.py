"""sum and mean over several dims, with and without keepdim; three outputs of different shapes."""
import torch
import torch.nn as nn

shape = (3, 5, 7, 11)


class Model(nn.Module):
    def forward(self, x: torch.Tensor):
        a = x.sum(dim=(1, 2), keepdim=True)
        b = torch.mean(x, dim=(0, 2))
        c = torch.sum(x, -1)
        d = x.mean(dim=[1, 3], keepdim=True)
        return a * 0.5, torch.relu(b), c - 1.0, d


def get_inputs():
    return [torch.randn(*shape)]


def get_init_inputs():
    return []
