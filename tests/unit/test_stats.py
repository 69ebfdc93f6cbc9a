"""Speedup intervals from interleaved rounds, the completion check and the roofline floor (pure)."""
from __future__ import annotations

import random

import pytest

from adaexplore_core.judge import stats


def noisy(center: float, spread: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [center * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def test_clear_speedup_has_an_interval_above_one():
    eager = [noisy(2.0, 0.02, 50, r) for r in range(4)]
    cand = [noisy(1.0, 0.02, 50, 10 + r) for r in range(4)]
    s = stats.speedup(eager, cand)
    assert s.estimate == pytest.approx(2.0, rel=0.02)
    assert 1.9 < s.low <= s.estimate <= s.high < 2.1
    assert s.faster and not s.slower


def test_speedup_inside_the_noise_is_not_called_faster():
    eager = [noisy(1.0, 0.3, 30, r) for r in range(4)]
    cand = [noisy(0.97, 0.3, 30, 10 + r) for r in range(4)]
    s = stats.speedup(eager, cand)
    assert s.low < 1.0 < s.high
    assert not s.faster and not s.slower


def test_drift_between_rounds_cancels_when_interleaved():
    # The GPU gets 30 % slower each round; both are measured in every round, so the ratio stays 1.5.
    eager = [noisy(1.5 * 1.3 ** r, 0.01, 40, r) for r in range(4)]
    cand = [noisy(1.0 * 1.3 ** r, 0.01, 40, 10 + r) for r in range(4)]
    s = stats.speedup(eager, cand)
    assert s.estimate == pytest.approx(1.5, rel=0.02)
    assert s.high / s.low < 1.1


def test_one_lucky_round_widens_the_interval():
    eager = [noisy(1.0, 0.01, 40, r) for r in range(4)]
    steady = [noisy(1.0, 0.01, 40, 10 + r) for r in range(4)]
    lucky = steady[:3] + [noisy(0.5, 0.01, 40, 20)]
    assert stats.speedup(eager, lucky).low < 1.05
    assert stats.speedup(eager, lucky).high > stats.speedup(eager, steady).high


def test_the_interval_is_reproducible():
    eager = [noisy(1.2, 0.1, 20, r) for r in range(3)]
    cand = [noisy(1.0, 0.1, 20, 10 + r) for r in range(3)]
    assert stats.speedup(eager, cand, seed=3) == stats.speedup(eager, cand, seed=3)


@pytest.mark.parametrize("eager, cand", [([], []), ([[1.0]], []), ([[1.0], []], [[1.0], [1.0]])])
def test_speedup_rejects_malformed_rounds(eager, cand):
    with pytest.raises(ValueError):
        stats.speedup(eager, cand)


def test_pooled_median_and_spread():
    assert stats.pooled_median([[1.0, 2.0], [3.0]]) == 2.0
    assert stats.spread([[1.0, 2.0, 3.0, 4.0, 5.0]]) == pytest.approx(2.0)


@pytest.mark.parametrize("event, wall, hidden", [
    (1.0, 1.05, False),      # an honest 1 ms forward
    (0.02, 0.06, False),     # launch-bound: the host's clock includes the synchronize
    (0.02, 1.0, True),       # 1 ms of work on a stream the events did not wait for
    (1.0, 3.0, True),
])
def test_hidden_work(event, wall, hidden):
    assert stats.hidden_work(event, wall) is hidden


def test_roofline_floor():
    facts = {"min_bytes": 4_000_000_000, "flops": 0, "peak_gbps": 4000.0, "peak_tflops": 50.0}
    floor = stats.roofline_ms(facts, fp32_compute=True)
    assert floor == pytest.approx(1.0)             # 4 GB at 4 TB/s
    assert stats.impossible(0.5, floor)
    assert not stats.impossible(0.8, floor)
    assert stats.roofline_ms({}, True) is None and not stats.impossible(0.001, None)


def test_roofline_compute_floor_only_for_fp32():
    facts = {"min_bytes": 1000, "flops": 10 ** 12, "peak_gbps": 4000.0, "peak_tflops": 50.0}
    assert stats.roofline_ms(facts, fp32_compute=True) == pytest.approx(20.0)
    assert stats.roofline_ms(facts, fp32_compute=False) < 0.001


def test_the_impossible_floor_counts_flops_at_the_tensor_core_peak():
    """Red team (2026-12-02): an honest fp32 product from three bf16 products on the tensor cores ran at 2.3x
    cuBLAS's fp32 throughput and was rejected as impossible; the floor counts flops at the bf16 peak instead."""
    facts = {"min_bytes": 1000, "flops": 10 ** 12, "peak_gbps": 4000.0, "peak_tflops": 50.0,
             "peak_tensor_tflops": 500.0, "floating": True}
    assert stats.impossible_floor_ms(facts) == pytest.approx(2.0)
    assert not stats.impossible(1.5, stats.impossible_floor_ms(facts))      # 2.3x cuBLAS's fp32 (20 ms): fine
    assert stats.impossible(1.0, stats.impossible_floor_ms(facts))
    assert stats.impossible_floor_ms({**facts, "floating": False}) < 0.001    # 8-bit integer products: bytes only
    assert stats.impossible_floor_ms({k: v for k, v in facts.items() if k != "peak_tensor_tflops"}) < 0.001
    assert stats.impossible_floor_ms({}) is None
