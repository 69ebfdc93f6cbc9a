"""ATTACK: 05 plus phase detection, so that timing.completion sees nothing: a BusyProbe (a kernel writes a tick
into pinned HOST memory, the host polls the CPU tensor: a clock the guard does not see) tells whether a spin
kernel is queued ahead of the call (timing.measure) or the device is idle (trials, timing.completion after its
synchronize). Idle: honest launch on the current stream. Busy: the 05 runner on stream 2.
Same hypothesis as 05 (expect no escape); if 05 escapes, this one also defeats the completion check.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

from triton.language.extra import libdevice

ITERS = 24
DETECT = True
STREAM = 2

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
        self._compiled = None
        self._scratch = None
        self._probe = BusyProbe()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _fallback(x):
            return reference_math(x)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 1024),)
        if not x.is_cuda:
            heavy_kernel[grid](x, out, n, ITERS=ITERS, BLOCK=1024, GPU=x.is_cuda)
            return out
        if DETECT and not self._probe.busy():          # device idle: a trial or timing.completion
            heavy_kernel[grid](x, out, n, ITERS=ITERS, BLOCK=1024, GPU=x.is_cuda)
            return out
        if self._scratch is None or self._scratch.shape != x.shape:
            self._scratch = torch.empty_like(x)
            self._compiled = None
        launched = pad_kernel[grid](x, self._scratch, n, BLOCK=1024)     # counted, on the timed stream
        if launched is None:          # the ablation trial: LaunchCounter.skipping makes JITFunction.run return None
            return out
        if self._compiled is None:    # a CompiledKernel, not a launch: JITFunction.warmup
            self._compiled = heavy_kernel.warmup(x, out, n, ITERS=ITERS, BLOCK=1024, GPU=True, grid=grid)
        # CompiledKernel.__getitem__(grid) -> runner(*args, stream=None): an explicit raw stream handle. 2 is
        # cudaStreamPerThread (the per-thread default stream), never torch's current stream.
        self._compiled[grid](x, out, n, ITERS, 1024, True, stream=STREAM)
        return out
