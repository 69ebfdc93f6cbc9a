"""Red team 16 (2026-12-04, a5): ELU, trained. Its autograd saves the input, so a program may change the output in
place before the loss (``out += identity``, as torchvision's BasicBlock does)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.elu(x)


def get_inputs():
    return [torch.randn(8, 32)]


def get_init_inputs():
    return []
