"""How close a timed candidate is to the hardware's limit: a lower-bound roofline.

The least work any implementation must do: read every input, parameter and buffer once and write every
output once (``min_bytes``), and perform the matrix products and convolutions the reference performs
(``flops``, counted by torch's FlopCounterMode; pointwise work is not counted). With the device's peak
bandwidth and fp32 (IEEE, no TF32) throughput — measured once per worker — the roofline time is
max(min_bytes / bandwidth, flops / throughput); the fraction is that time over the candidate's time. It is an
estimate from below (real kernels move more bytes), so 1.0 means "at the limit" and small values mean room.

The fp32 throughput is not a limit, though: a kernel can compute an fp32 product to fp32 accuracy on the tensor
cores (three bf16 products of split operands; red team 2026-12-02: an honest one ran at 2.3x cuBLAS's fp32).
So the floor below which a time is rejected as impossible (``stats.impossible_floor_ms``) counts the flops at
the faster of the bf16 and fp16 tensor-core throughputs instead, for any floating task without 8-bit inputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

COPY_BYTES = 1 << 30           # bandwidth probe: a 1 GiB device-to-device copy
MATMUL_N = 8192                # throughput probes: fp32 (IEEE) and bf16 (tensor cores) 8192^3 matrix products
PROBE_REPEATS = 5


@dataclass
class Peaks:
    bandwidth_gbps: float      # GB/s (1e9 bytes), read + write of a large copy
    fp32_tflops: float         # TFLOP/s of an IEEE fp32 matrix product
    tensor_tflops: float = 0.0  # TFLOP/s of a bf16 or fp16 matrix product, the faster (0: not measured)


def tensors_in(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors_in(v)]
    return []


def min_bytes(inputs: Any, outputs: Any, module: torch.nn.Module | None = None) -> int:
    """Bytes of the distinct storages of the inputs, the module's parameters and buffers, and the outputs."""
    seen: set[tuple[str, int]] = set()
    total = 0
    state = list(module.parameters()) + list(module.buffers()) if module is not None else []
    for t in tensors_in(inputs) + state + tensors_in(outputs):
        try:
            key = (str(t.device), t.untyped_storage().data_ptr())
        except (RuntimeError, NotImplementedError):
            key = (str(t.device), id(t))
        if key in seen:
            continue
        seen.add(key)
        total += t.numel() * t.element_size()
    return total


def count_flops(module: torch.nn.Module, inputs: list[Any]) -> int:
    """Floating-point operations of the matrix products and convolutions of one forward."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        module(*inputs)
    return int(counter.get_total_flops())


def measure_peaks(device: torch.device) -> Peaks:
    """Peak bandwidth and fp32 throughput of ``device`` (CUDA), medians of a few timed probes."""
    def timed(fn: Any) -> float:
        fn()
        torch.cuda.synchronize(device)
        samples = []
        for _ in range(PROBE_REPEATS):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize(device)
            samples.append(start.elapsed_time(end) / 1000.0)
        return sorted(samples)[len(samples) // 2]

    def bandwidth() -> float:
        src = torch.empty(COPY_BYTES // 4, dtype=torch.float32, device=device)
        dst = torch.empty_like(src)
        return 2 * COPY_BYTES / timed(lambda: dst.copy_(src)) / 1e9

    def throughput(dtype: torch.dtype) -> float:
        a = torch.randn(MATMUL_N, MATMUL_N, device=device, dtype=dtype)
        b = torch.randn(MATMUL_N, MATMUL_N, device=device, dtype=dtype)
        previous = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        try:
            return 2 * MATMUL_N ** 3 / timed(lambda: a @ b) / 1e12
        finally:
            torch.backends.cuda.matmul.allow_tf32 = previous

    peaks = Peaks(bandwidth_gbps=bandwidth(), fp32_tflops=throughput(torch.float32),   # the faster half type:
                  tensor_tflops=max(throughput(torch.bfloat16), throughput(torch.float16)))   # no bf16 cores (V100)
    torch.cuda.empty_cache()
    return peaks


def fraction(bytes_: int, flops: int, peaks: Peaks, candidate_ms: float) -> tuple[float, str]:
    """(roofline time / candidate time, "memory" or "compute": which bound is higher)."""
    memory_s = bytes_ / (peaks.bandwidth_gbps * 1e9)
    compute_s = flops / (peaks.fp32_tflops * 1e12)
    bound = "compute" if compute_s > memory_s else "memory"
    return max(memory_s, compute_s) / (candidate_ms / 1000.0), bound
