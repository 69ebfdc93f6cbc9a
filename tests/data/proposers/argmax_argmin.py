"""Indices of extremes: argmax over the last dim (short rows: the tile kernel), argmin over a middle dim (the
strided kernel), the indices of ``torch.max(x, dim)`` with its values unused, and an argmax over long rows
(the looped kernel) of a pointwise prologue. Ties and NaN follow torch: the first extreme, a NaN counting
as one. The indices of a bool max stay in torch (argmax refuses bools); an fp16 argmax does not take its
prologue (computed in fp32, it would miss ties that rounding to fp16 makes)."""
import torch
import torch.nn as nn

batch, rows, cols, long_cols = 3, 6, 33, 1500


class Model(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, ...]:
        last = torch.argmax(x, dim=-1)
        middle = torch.argmin(x, dim=1, keepdim=True)
        _, of_max = torch.max(x, 2)
        long = torch.argmax(torch.relu(y) * 2.0, dim=1)
        first_true = (y > 0.5).max(dim=1)[1]                   # indices of a bool max: left to torch
        half = torch.argmax(h + 1000.0, dim=1)                 # ties only after rounding to fp16
        return last, middle, of_max, long, first_true, half


def get_inputs():
    x = torch.randn(batch, rows, cols).round(decimals=1)     # rounded: ties
    x[0, 2, 5] = float("nan")
    x[1, :, 3] = float("nan")
    y = torch.randn(batch, long_cols).round()                # whole numbers: the row's maximum repeats
    y[1, 700] = float("nan")
    return [x, y, torch.rand(16, 2000).half()]


def get_init_inputs():
    return []
