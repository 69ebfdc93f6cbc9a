"""The lower-bound roofline: least bytes (distinct storages of inputs, parameters, buffers, outputs), the
flops torch's counter sees, and the fraction against measured peaks. (The peak probes need CUDA: tests/gpu.)"""
from __future__ import annotations

import pytest
import torch
from torch import nn

from adaexplore_core.judge import roofline


def test_min_bytes_counts_each_storage_once():
    x = torch.randn(4, 8)                         # 128 bytes
    view = x[:, :4]                               # same storage: not counted again
    model = nn.Linear(8, 2)                       # weight 64 + bias 8 bytes
    out = model(x)                                # 32 bytes
    assert roofline.min_bytes([x, view], out, model) == 128 + 64 + 8 + 32
    assert roofline.min_bytes([x], (out, [out]), None) == 128 + 32
    assert roofline.min_bytes([1.0, "text"], None) == 0


def test_flops_of_matrix_products_and_convolutions():
    assert roofline.count_flops(nn.Linear(8, 2, bias=False), [torch.randn(4, 8)]) == 2 * 4 * 8 * 2
    conv = nn.Conv2d(3, 5, 3, bias=False)
    expected = 2 * (1 * 5 * 6 * 6) * (3 * 3 * 3)
    assert roofline.count_flops(conv, [torch.randn(1, 3, 8, 8)]) == expected
    assert roofline.count_flops(nn.ReLU(), [torch.randn(10)]) == 0        # pointwise work is not counted


def test_fraction_takes_the_higher_bound():
    peaks = roofline.Peaks(bandwidth_gbps=1000.0, fp32_tflops=10.0)
    frac, bound = roofline.fraction(bytes_=10**9, flops=10**9, peaks=peaks, candidate_ms=2.0)   # 1 ms vs 0.1 ms
    assert bound == "memory" and frac == pytest.approx(0.5)
    frac, bound = roofline.fraction(bytes_=10**6, flops=10**11, peaks=peaks, candidate_ms=20.0)  # 10 ms compute
    assert bound == "compute" and frac == pytest.approx(0.5)


def test_timing_round_trips_with_and_without_roofline():
    from adaexplore_core.judge.verdict import Timing, Verdict
    base = dict(candidate_ms=1.0, candidate_iqr_ms=0.1, eager_ms=2.0, eager_iqr_ms=0.1, compile_ms=None,
                compile_iqr_ms=None, speedup_vs_eager=2.0, speedup_vs_compile=None, iterations=10, input_sets=1)
    old = Verdict.from_dict({"verdict": "valid", "reason": "r", "stage": "ok", "timing": base})
    assert old.timing.roofline_fraction is None
    new = Verdict.from_dict({"verdict": "valid", "reason": "r", "stage": "ok",
                             "timing": {**base, "roofline_fraction": 0.4, "roofline_bound": "memory"}})
    assert new.timing == Timing(**{**base, "roofline_fraction": 0.4, "roofline_bound": "memory"})
