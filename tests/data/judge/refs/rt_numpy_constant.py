"""Reference that imports numpy (for a constant), as some KernelBench-style files do."""
import numpy as np
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * float(np.sqrt(2.0))


def get_inputs():
    return [torch.randn(16, 64)]


def get_init_inputs():
    return []
