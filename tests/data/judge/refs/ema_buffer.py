"""A forward that keeps a running average of its input in a buffer by rebinding it
(``self.ema = ...``, not an in-place update): the buffer's new value is part of what the module computes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("ema", torch.zeros(16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.ema = 0.5 * self.ema + 0.5 * x.mean(0)
        return x * 2.0


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
