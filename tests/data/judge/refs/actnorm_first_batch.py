"""ActNorm (Glow): a per-feature affine map whose parameters are set from the first batch it sees (a
data-dependent initialisation), the flag kept as a plain attribute as many implementations keep it
(red team c5, 2026-12-03: the judge warmed the reference alone, so an honest candidate initialised again)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(features))
        self.log_scale = nn.Parameter(torch.zeros(features))
        self.initialized = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.initialized:
            with torch.no_grad():
                self.loc.copy_(-x.mean(0))
                self.log_scale.copy_(-torch.log(x.std(0) + 1e-6))
            self.initialized = True
        return (x + self.loc) * torch.exp(self.log_scale)


def get_inputs():
    return [torch.randn(16, 32)]


def get_init_inputs():
    return [32]
