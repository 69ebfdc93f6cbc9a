"""Timing on CUDA: fresh inputs for every timed call, L2 flushed before it, CUDA events around it.

The same loop times the candidate (in its sandboxed child) and the baselines (in a process no candidate has
touched). Every timed call gets inputs no earlier call has seen: the base input sets are perturbed elementwise
by new random factors, into new tensors, and the global RNG is reseeded, so a cache keyed on identity,
``data_ptr``, sampled values or RNG state cannot hit. A few timed calls, at random positions, keep their inputs
and outputs for the caller to check against the reference. ``completion`` times a few calls both with events and
with the host's clock after a device-wide synchronize: work hidden from the current stream shows as a gap.

The events measure the device alone. Making fresh inputs costs the host ~0.3 ms per call, so the device is idle
when a call's start event is queued, and without care the interval would include the host's time to launch the
call: for a 40 µs compiled kernel on a host busy with other judge workers, 2-4x its device time (H200,
2026-12-02). So a spin kernel (``torch.cuda._sleep``) is queued after the L2 flush and before the start event,
long enough to cover the host's launch of the call (twice its usual time, ``cover_ms``): the call's kernels are all
queued before the device reaches them. The host's own time per call is measured too and reported beside the
device's: a call whose host time exceeds its device time is host-bound in a loop.
"""
from __future__ import annotations

import functools
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

L2_FLUSH_BYTES = 256 * 1024 * 1024   # several times the L2 of current GPUs (H200: 60 MB)


@dataclass(frozen=True)
class TimingConfig:
    """How long one measurement takes (wall time: fresh inputs, the flush and the spin count); a candidate is
    measured in several of these (rounds)."""

    budget_ms: float = 80.0
    warmup_ms: float = 10.0
    min_iterations: int = 10
    max_iterations: int = 500
    checked_calls: int = 2           # timed calls per measurement whose outputs the caller checks


@dataclass
class Measurement:
    samples: list[float]                                   # device ms per timed call (launch hidden)
    host_ms: list[float] = field(default_factory=list)     # the host's ms to launch each timed call
    uncovered: int = 0                                     # calls whose launch outlasted the spin before them
    # (a function making the call's inputs again, as they were before the call; its output)
    checked: list[tuple[Callable[[], list[Any]], Any]] = field(default_factory=list)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples)


def input_set_count(inputs: list[Any]) -> int:
    """How many base input sets to rotate: three unless one set is large (then they cannot sit in L2 anyway)."""
    size = _bytes(inputs)
    if size > 4 << 30:
        return 1
    return 2 if size > 1 << 30 else 3


def quartiles(samples: list[float]) -> tuple[float, float]:
    """(median, interquartile range) of ``samples``."""
    if len(samples) < 2:
        return samples[0], 0.0
    q1, q2, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return q2, q3 - q1


class FreshInputs:
    """New inputs for every call: a base set's floating tensors times elementwise factors in [0.5, 1.5) (of
    random sign where the tensor holds both signs, so sign patterns change too: a cache keyed on ``sign(x)``
    would hit on every timed call otherwise, red team 2026-12-02; a one-signed tensor keeps its sign, and zeros
    stay zeros, which structured inputs need), its integer tensors with repeated values redrawn from their own values (``_resampled``), the other integer and
    the boolean tensors with their elements shuffled (same values, new places). Each call's inputs
    can be made again, equal, from its recipe (``last_recipe``), so a checked call needs no copy of them; and
    torch's generators are left as that call found them, so a reference that draws random numbers (dropout)
    draws the call's numbers again."""

    def __init__(self, base_sets: list[list[Any]], seed: int) -> None:
        self.base_sets = base_sets
        self.resample = [[isinstance(x, torch.Tensor) and not x.is_floating_point() and x.numel() > 1
                          and _resampled(x) for x in base]
                         for base in base_sets]       # once, here: torch.unique waits for the device
        self.mixed_signs = [[isinstance(x, torch.Tensor) and x.is_floating_point() and _both_signs(x) for x in base]
                            for base in base_sets]
        self.rng = random.Random(seed)
        self.calls = 0
        self.last_recipe: tuple[int, int, int] = (0, 0, 0)   # (base set, inputs' seed, the call's seed) of the
                                                              # inputs ``next`` returned last

    def next(self) -> list[Any]:
        self.last_recipe = (self.calls % len(self.base_sets), self.rng.getrandbits(62), self.rng.getrandbits(62))
        self.calls += 1
        return self.make(self.last_recipe)       # the call itself sees a fresh RNG state, its recipe's

    def make(self, recipe: tuple[int, int, int]) -> list[Any]:
        """The inputs of ``recipe``: new tensors, equal to those ``next`` returned with it, and torch's
        generators seeded as that call's were."""
        base, seed, call_seed = recipe
        torch.manual_seed(seed)
        fresh = []
        for x, resample, mixed in zip(self.base_sets[base], self.resample[base], self.mixed_signs[base]):
            if isinstance(x, torch.Tensor) and x.is_floating_point() and mixed:
                factors = torch.empty_like(x).uniform_(-1.0, 1.0)
                fresh.append(factors.add_(torch.sign(factors), alpha=0.5).mul_(x))   # |factor| in [0.5, 1.5)
            elif isinstance(x, torch.Tensor) and x.is_floating_point():
                fresh.append(torch.empty_like(x).uniform_(0.5, 1.5).mul_(x))   # one new tensor (memory)
            elif resample:                                             # integers with repeated values:
                picks = torch.randint(x.numel(), (x.numel(),), device=x.device)    # new counts of each value
                fresh.append(x.reshape(-1)[picks].reshape(x.shape))
            elif isinstance(x, torch.Tensor) and x.numel() > 1:      # masks, permutations: the values shuffled
                order = torch.randperm(x.numel(), device=x.device)
                fresh.append(x.reshape(-1)[order].reshape(x.shape))
            elif isinstance(x, torch.Tensor):
                fresh.append(x.clone())
            else:
                fresh.append(x)
        torch.manual_seed(call_seed)
        return fresh


def _both_signs(x: torch.Tensor) -> bool:
    """Whether floating tensor ``x`` holds negative and positive elements."""
    return x.numel() > 1 and bool((x < 0).any()) and bool((x > 0).any())


def _resampled(x: torch.Tensor) -> bool:
    """Whether a timed call's copy of integer tensor ``x`` draws its elements from x's own values (sums, counts and
    histograms change, so a cache keyed on them misses: red team b14) rather than only shuffling them: integers
    with repeated values. A permutation stays a permutation (shuffled), a mask a mask with as many set."""
    return x.dtype != torch.bool and not x.is_complex() and torch.unique(x).numel() < x.numel()


_flush_buffers: dict[torch.device, torch.Tensor] = {}


def _flush_l2(device: torch.device) -> None:
    buf = _flush_buffers.get(device)
    if buf is None:
        buf = _flush_buffers[device] = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=device)
    buf.zero_()


MIN_COVER_MS = 0.03      # the shortest spin before a timed call
MAX_COVER_MS = 5.0       # the longest: a call whose launch takes longer is host-bound whatever its device time


def cover_ms(host_ms: list[float]) -> float:
    """How long the spin before a timed call runs: twice the launch time nine in ten calls stayed under (one
    slow launch, a garbage collection say, does not make every spin long), within the bounds above."""
    if not host_ms:
        return MIN_COVER_MS
    ninetieth = sorted(host_ms)[min(len(host_ms) - 1, int(0.9 * len(host_ms)))]
    return _bounded_cover(2 * ninetieth)


def _bounded_cover(ms: float) -> float:
    return min(MAX_COVER_MS, max(MIN_COVER_MS, ms))


def measure(fn: Callable[..., Any], fresh: FreshInputs, device: torch.device,
            config: TimingConfig = TimingConfig(), check: bool = False) -> Measurement:
    """Time ``fn`` on fresh inputs; with ``check``, keep a few calls' inputs and outputs."""
    with torch.no_grad():
        began = time.perf_counter()
        fn(*fresh.next())                           # first call: compilation, autotuning, allocator warm-up
        torch.cuda.synchronize(device)
        first = (time.perf_counter() - began) * 1000
        probe = _time_calls(fn, fresh, device, 3, cover=_bounded_cover(first))
        cover = cover_ms(probe.host_ms)
        estimate = max(statistics.median(probe.samples) + cover, statistics.median(probe.host_ms), 1e-3)
        warm_count = min(200, max(2, int(config.warmup_ms / estimate)))
        began = time.perf_counter()
        warm = _time_calls(fn, fresh, device, warm_count, cover=cover)
        # the budget is wall time: a call's fresh inputs, flush and spin cost as much as the call itself
        per_call = max((time.perf_counter() - began) * 1000 / warm_count, 1e-3)
        count = int(min(config.max_iterations, max(config.min_iterations, config.budget_ms / per_call)))
        rng = random.Random(fresh.rng.getrandbits(62))
        count += rng.randrange(count // 4 + 1)          # the last call cannot be predicted from the budget
        keep_last, checked = retention(fresh.base_sets[0], config)
        picks = set(rng.sample(range(count), min(count, checked))) if check else set()
        return _time_calls(fn, fresh, device, count, picks, keep_last=keep_last if check else 0,
                           cover=cover_ms(probe.host_ms + warm.host_ms))


RETAINED = 2   # every checked measurement keeps each call's output alive for this many calls
LARGE_INPUT_BYTES = 2 << 30   # above this, one call is retained and one checked per measurement (memory: a
                              # 8.6 GB level-1 task ran out of an H200's 0.7 while timed with two of each)


def retention(inputs: list[Any], config: TimingConfig = TimingConfig()) -> tuple[int, int]:
    """(calls whose output stays alive, calls checked) per checked measurement of these inputs."""
    if _bytes(inputs) > LARGE_INPUT_BYTES:
        return 1, 1
    return RETAINED, config.checked_calls


def _bytes(inputs: list[Any]) -> int:
    return sum(x.numel() * x.element_size() for x in inputs if isinstance(x, torch.Tensor))


def _time_calls(fn: Callable[..., Any], fresh: FreshInputs, device: torch.device, count: int,
                checked: set[int] = frozenset(), keep_last: int = 0, cover: float = MIN_COVER_MS) -> Measurement:
    """Timed calls, each behind a spin of ``cover`` ms (a launch that outlasts it is counted). With
    ``keep_last``, every call's output stays alive for the next ``keep_last`` calls, so no call sees the memory
    of the one before it and a checked call's allocations look like any other's; the last ones and the
    ``checked`` ones are returned, each as (its inputs made again, its output)."""
    pairs, kept, recent, host, uncovered = [], [], [], [], 0
    for i in range(count):
        inputs = fresh.next()
        before = functools.partial(fresh.make, fresh.last_recipe)
        _flush_l2(device)
        torch.cuda._sleep(int(cover * _cycles_per_ms(device)))
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        began = time.perf_counter()
        start.record()
        out = fn(*inputs)
        end.record()
        host.append((time.perf_counter() - began) * 1000)
        uncovered += host[-1] > cover
        pairs.append((start, end))
        if i in checked:
            kept.append((before, out))
        if keep_last:
            recent = (recent + [(before, out)])[-keep_last:]
        del out, inputs, before
    torch.cuda.synchronize(device)          # device-wide: every stream has finished
    return Measurement(samples=[s.elapsed_time(e) for s, e in pairs], host_ms=host, uncovered=uncovered,
                       checked=kept + recent)


_cycles: dict[torch.device, float] = {}


def _cycles_per_ms(device: torch.device) -> float:
    """The clock cycles ``torch.cuda._sleep`` spins per ms on ``device``, measured once per process."""
    if device not in _cycles:
        with torch.cuda.device(device):
            torch.cuda._sleep(1_000_000)                  # the clocks up
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.cuda._sleep(10_000_000)
            end.record()
            end.synchronize()
            _cycles[device] = 10_000_000 / max(start.elapsed_time(end), 1e-3)
    return _cycles[device]


def completion(fn: Callable[..., Any], fresh: FreshInputs, device: torch.device,
               count: int = 5) -> tuple[float, float]:
    """(median event ms, median host ms to device-wide completion) of ``count`` calls."""
    events, walls = [], []
    with torch.no_grad():
        for _ in range(count):
            inputs = fresh.next()
            torch.cuda.synchronize(device)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            began = time.perf_counter()
            start.record()
            fn(*inputs)
            end.record()
            torch.cuda.synchronize(device)
            walls.append((time.perf_counter() - began) * 1000)
            events.append(start.elapsed_time(end))
    return statistics.median(events), statistics.median(walls)

