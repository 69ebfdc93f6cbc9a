"""Speedups with confidence intervals, from timing rounds interleaved with the baselines (pure; numpy only).

Timing runs in rounds; in each round the candidate and the baselines are measured back to back on the same
GPU, so drift (clocks, temperature, other tenants) hits all of them alike. A round's speedup is the ratio of
the two medians; the estimate is the geometric mean of the rounds' speedups, and its 95 % interval comes from
a two-level bootstrap: rounds drawn with replacement, and each drawn round's samples drawn with replacement.
A candidate is called faster only when the whole interval lies above 1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BOOTSTRAP_DRAWS = 1000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Speedup:
    """``baseline time / candidate time``: the estimate and its 95 % interval."""

    estimate: float
    low: float
    high: float

    @property
    def faster(self) -> bool:
        return self.low > 1.0

    @property
    def slower(self) -> bool:
        return self.high < 1.0


def _round_medians(samples: list[list[float]], rng: np.random.Generator) -> np.ndarray:
    """(draws, rounds): the median of each round's samples, resampled ``BOOTSTRAP_DRAWS`` times."""
    columns = []
    for round_samples in samples:
        values = np.asarray(round_samples, dtype=np.float64)
        picks = rng.integers(0, len(values), size=(BOOTSTRAP_DRAWS, len(values)))
        columns.append(np.median(values[picks], axis=1))
    return np.stack(columns, axis=1)


def speedup(baseline: list[list[float]], candidate: list[list[float]], seed: int = 0) -> Speedup:
    """The speedup of ``candidate`` over ``baseline``; both are per-round lists of samples (ms), same rounds."""
    if len(baseline) != len(candidate) or not baseline:
        raise ValueError("speedup needs the same, non-zero number of rounds for both")
    if any(not r for r in baseline) or any(not r for r in candidate):
        raise ValueError("every round needs at least one sample")
    ratios = np.log([np.median(b) / np.median(c) for b, c in zip(baseline, candidate)])
    estimate = float(np.exp(ratios.mean()))
    rng = np.random.default_rng(seed)
    base, cand = _round_medians(baseline, rng), _round_medians(candidate, rng)
    rounds = len(baseline)
    chosen = rng.integers(0, rounds, size=(BOOTSTRAP_DRAWS, rounds))
    rows = np.arange(BOOTSTRAP_DRAWS)[:, None]
    logs = np.log(base[rows, chosen] / cand[rows, chosen]).mean(axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.exp(np.percentile(logs, [tail, 100 - tail]))
    return Speedup(estimate=estimate, low=float(min(low, estimate)), high=float(max(high, estimate)))


def pooled_median(samples: list[list[float]]) -> float:
    """The median of all rounds' samples together."""
    return float(np.median(np.concatenate([np.asarray(r, dtype=np.float64) for r in samples])))


def median(values: list[float]) -> float:
    return float(np.median(np.asarray(values, dtype=np.float64)))


def spread(samples: list[list[float]]) -> float:
    """Interquartile range of all rounds' samples together (ms)."""
    values = np.concatenate([np.asarray(r, dtype=np.float64) for r in samples])
    q1, q3 = np.percentile(values, [25, 75])
    return float(q3 - q1)


COMPLETION_SLACK_MS = 0.1
ROOFLINE_MARGIN = 0.7      # a time under 70 % of the roofline's is impossible, not fast


def hidden_work(event_ms: float, wall_ms: float) -> bool:
    """True when the host waited far longer for the device than the events saw: work off the timed stream."""
    return wall_ms > 2 * event_ms + COMPLETION_SLACK_MS


def roofline_ms(facts: dict, fp32_compute: bool) -> float | None:
    """The least time any implementation needs (ms): bytes over measured bandwidth and, for fp32 work with TF32
    off, flops over measured fp32 throughput; None when the facts are missing."""
    if not facts.get("min_bytes") or not facts.get("peak_gbps"):
        return None
    memory = facts["min_bytes"] / (facts["peak_gbps"] * 1e9) * 1e3
    compute = facts.get("flops", 0) / (facts["peak_tflops"] * 1e12) * 1e3 if fp32_compute and \
        facts.get("peak_tflops") else 0.0
    return max(memory, compute)


def impossible_floor_ms(facts: dict) -> float | None:
    """The least time any implementation of floating accuracy needs (ms), below which a time is rejected:
    bytes over measured bandwidth and, for a floating task (no 8-bit inputs), flops over the measured
    tensor-core throughput, the faster of bf16 and fp16 (roofline.py: fp32 products can run there too);
    None when the facts are missing."""
    if not facts.get("min_bytes") or not facts.get("peak_gbps"):
        return None
    memory = facts["min_bytes"] / (facts["peak_gbps"] * 1e9) * 1e3
    tensor = facts.get("peak_tensor_tflops")
    compute = facts.get("flops", 0) / (tensor * 1e12) * 1e3 if tensor and facts.get("floating") else 0.0
    return max(memory, compute)


def impossible(candidate_ms: float, floor_ms: float | None) -> bool:
    return floor_ms is not None and candidate_ms < ROOFLINE_MARGIN * floor_ms
