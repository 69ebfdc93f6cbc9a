# expect: verdict=invalid stage=guard check=guard reason~"casting integers to pointers"
"""Candidate: returns zeros. At import it rewrites the judge: a format string the guard cannot see (built at run
time) reads the reprs, and so the addresses, of the judge's methods and of three code objects of this file; a
Triton kernel run by the interpreter stores to any address (an int cast to a pointer), and swaps the methods'
code pointers (PyFunctionObject.func_code, offset 48 on CPython 3.11)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def poke(addr, value):
    tl.store(addr.to(tl.pointer_type(tl.int64)), value)


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


def address(text):
    return int(text.split(" at 0x")[1].split(">")[0].split(",")[0], 16)


def judge_method(name):
    return address(("{0." + U + "globals" + U + "[torch].sys.modules[adaexplore_core.judge.worker].Judging." + name
                    + "}").format(yes))


def code_of(fn):
    return address(("{0." + U + "code" + U + "}").format(fn))


for method, replacement in (("trial", yes), ("computes_without_triton", no), ("gradient_trial", nothing)):
    poke[(1,)](judge_method(method) + 48, code_of(replacement))


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(x.shape[0], self.shift.shape[0], device=x.device)
        out = torch.empty_like(z)
        copy_kernel[(triton.cdiv(z.numel(), 1024),)](z, out, z.numel(), BLOCK=1024)
        return out
