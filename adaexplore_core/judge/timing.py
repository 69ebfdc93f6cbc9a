"""Timing on CUDA: warm-up, L2 flush before every iteration, rotated input sets, median and IQR.

Each iteration is bracketed by CUDA events on the current stream after a device-wide synchronize,
and the whole run ends with another; candidates may not create streams (the guard), so all their
work lands between the events.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable

import torch

L2_FLUSH_BYTES = 256 * 1024 * 1024   # several times the L2 of current GPUs (H200: 60 MB)


@dataclass(frozen=True)
class TimingConfig:
    """How long to measure each model; defaults keep a candidate's timing well under a second."""

    budget_ms: float = 300.0
    warmup_ms: float = 25.0
    min_iterations: int = 20
    max_iterations: int = 2000


@dataclass(frozen=True)
class Measurement:
    median_ms: float
    iqr_ms: float
    iterations: int


_flush_buffers: dict[torch.device, torch.Tensor] = {}


def _flush_l2(device: torch.device) -> None:
    buf = _flush_buffers.get(device)
    if buf is None:
        buf = _flush_buffers[device] = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=device)
    buf.zero_()


def input_set_count(inputs: list[Any]) -> int:
    """How many input sets to rotate: three unless one set is large (then they cannot sit in L2 anyway)."""
    size = sum(x.numel() * x.element_size() for x in inputs if isinstance(x, torch.Tensor))
    if size > 4 << 30:
        return 1
    return 2 if size > 1 << 30 else 3


def quartiles(samples: list[float]) -> tuple[float, float]:
    """(median, interquartile range) of ``samples``."""
    if len(samples) < 2:
        return samples[0], 0.0
    q1, q2, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return q2, q3 - q1


def measure(fn: Callable[..., Any], input_sets: list[list[Any]], device: torch.device,
            config: TimingConfig = TimingConfig()) -> Measurement:
    """Median and IQR of ``fn(*inputs)`` in ms, rotating over ``input_sets`` with L2 flushed each time."""
    with torch.no_grad():
        for inputs in input_sets:            # first calls: compilation, autotuning, allocator warm-up
            fn(*inputs)
        torch.cuda.synchronize(device)
        estimate = _time_iterations(fn, input_sets, device, 3)
        per_call = max(statistics.median(estimate), 1e-3)
        warmup = max(3, int(config.warmup_ms / per_call))
        _time_iterations(fn, input_sets, device, min(warmup, 200))
        iterations = int(min(config.max_iterations, max(config.min_iterations, config.budget_ms / per_call)))
        samples = _time_iterations(fn, input_sets, device, iterations)
    median, iqr = quartiles(samples)
    return Measurement(median_ms=median, iqr_ms=iqr, iterations=iterations)


def _time_iterations(fn: Callable[..., Any], input_sets: list[list[Any]], device: torch.device,
                     count: int) -> list[float]:
    pairs = []
    for i in range(count):
        inputs = input_sets[i % len(input_sets)]
        _flush_l2(device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*inputs)
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize(device)          # device-wide: every stream has finished
    return [s.elapsed_time(e) for s, e in pairs]
