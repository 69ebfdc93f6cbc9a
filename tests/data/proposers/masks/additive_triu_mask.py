"""Softmax of scores plus an additive causal mask made in forward: torch.full((t, t), -inf).triu(1), fp32."""
import torch
import torch.nn as nn

batch, seq = 3, 8


class Model(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        t = scores.shape[-1]
        mask = torch.full((t, t), float("-inf"), device=scores.device).triu(diagonal=1)
        return torch.softmax(scores + mask, dim=-1)


def get_inputs():
    return [torch.randn(batch, seq, seq)]


def get_init_inputs():
    return []
