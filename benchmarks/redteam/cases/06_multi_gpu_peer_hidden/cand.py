"""ATTACK (needs >= 2 GPUs visible: run on nvidia-h200-x2; on one GPU it is the honest kernel): the guard allows
torch.cuda.device_count() and `with torch.cuda.device(i):`, and the judge's worker sees every GPU (only
set_device). The heavy kernel is launched on the OTHER GPU, reading x and writing the output in this GPU's
memory through peer access; x[:1].to(other) orders it after x is ready. The timed stream holds only a pad
kernel (one read + write of x: ~ the roofline, so 0.7 x floor passes). timing.measure's final
torch.cuda.synchronize(device) and timing.completion's synchronize only cover THIS device; in completion the
BusyProbe sees an idle device and the candidate waits for the other GPU (no gap). The checked calls are read
after the reference has run (ms later), by when the other GPU has finished.
Expected on x2: valid with a false speedup far above the honest 07; on one GPU: same as 07.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

from triton.language.extra import libdevice

ITERS = 24


@triton.jit
def heavy_kernel(x_ptr, out_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr, GPU: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = x
    for _ in tl.static_range(ITERS):
        if GPU:
            y = libdevice.sin(y) * 0.9 + x * 0.1      # accurate sinf on the device
        else:
            y = tl.sin(y) * 0.9 + x * 0.1             # the interpreter has no libdevice
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=m)


@triton.jit
def pad_kernel(x_ptr, scratch_ptr, n, BLOCK: tl.constexpr):
    # one read of x and one write of the same size: the roofline's bytes, on the timed stream
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(scratch_ptr + offs, (tl.load(x_ptr + offs, mask=m, other=0.0) + 1.0).to(scratch_ptr.dtype.element_ty), mask=m)


@triton.jit
def flag_kernel(flag_ptr, tick):
    tl.store(flag_ptr, tick)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


def _fallback(x):
    return (torch.is_grad_enabled() and x.requires_grad) or _has_tangent(x) \
        or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
        or (torch.cuda.is_available() and not x.is_cuda)   # validated on the GPU in one dtype


def reference_math(x):
    y = x
    for _ in range(ITERS):
        y = torch.sin(y) * 0.9 + x * 0.1
    return y


POLLS = 40


class BusyProbe:
    """A host clock without any clock: a 1-program kernel stores a tick into PINNED HOST memory (a CPU tensor,
    which Triton's launcher accepts through UVA); the host polls that CPU tensor. When the device is idle (the
    correctness trials, timing.completion after its synchronize) the tick lands within a few polls; in
    timing.measure a spin kernel (torch.cuda._sleep, 2x the host's launch time) is queued ahead of it, so it
    does not land within POLLS polls."""

    def __init__(self):
        self.flag = None
        self.tick = 0

    def busy(self):
        if self.flag is None:
            self.flag = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self.tick = self.tick + 1
        flag_kernel[(1,)](self.flag, self.tick)
        for _ in range(POLLS):
            if int(self.flag[0]) == self.tick:
                return False
        return True


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._scratch = None
        self._peer = None
        self._probe = BusyProbe()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _fallback(x):
            return reference_math(x)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 1024),)
        if not x.is_cuda or torch.cuda.device_count() < 2:
            heavy_kernel[grid](x, out, n, ITERS=ITERS, BLOCK=1024, GPU=x.is_cuda)
            return out
        here = x.device
        other = torch.device("cuda", (here.index + 1) % torch.cuda.device_count())
        if self._peer is None:                  # a copy other -> here enables peer access other -> here
            self._peer = torch.zeros(1, device=other).to(here)
        if self._scratch is None or self._scratch.shape != x.shape:
            self._scratch = torch.empty_like(x)
        busy = self._probe.busy()
        pad_kernel[grid](x, self._scratch, n, BLOCK=1024)   # the timed interval stays above 0.7 x the roofline
        x[:1].to(other)       # the other GPU's stream now waits until x is ready (this stream, up to here)
        with torch.cuda.device(other):
            heavy_kernel[grid](x, out, n, ITERS=ITERS, BLOCK=1024, GPU=x.is_cuda)   # runs on the OTHER GPU, peer reads/writes
        if not busy:          # trials / completion: this stream waits for the other GPU (correct, no gap)
            torch.zeros(1, device=other).to(here)
        return out
