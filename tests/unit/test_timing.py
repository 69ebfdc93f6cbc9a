"""Pure parts of timing: quartiles and how many input sets to rotate (no GPU needed)."""
from __future__ import annotations

import pytest
import torch

from adaexplore_core.judge import timing
from adaexplore_core.judge.timing import input_set_count, quartiles

GIB = 1 << 30


def test_quartiles_single_sample():
    assert quartiles([2.5]) == (2.5, 0.0)


def test_quartiles_two_samples():
    assert quartiles([1.0, 3.0]) == pytest.approx((2.0, 1.0))


def test_quartiles_odd_count():
    median, iqr = quartiles([5.0, 1.0, 3.0, 2.0, 4.0])        # order does not matter
    assert median == pytest.approx(3.0)
    assert iqr == pytest.approx(2.0)                        # q1 = 2, q3 = 4


def test_quartiles_even_count():
    median, iqr = quartiles([1.0, 2.0, 3.0, 4.0])
    assert median == pytest.approx(2.5)
    assert iqr == pytest.approx(1.5)                        # q1 = 1.75, q3 = 3.25


def test_quartiles_robust_to_one_outlier():
    samples = [1.0] * 20 + [1000.0]
    median, iqr = quartiles(samples)
    assert median == 1.0 and iqr == 0.0


def test_quartiles_constant():
    assert quartiles([0.7] * 9) == pytest.approx((0.7, 0.0))


def meta(nbytes: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A tensor of ``nbytes`` that allocates nothing."""
    itemsize = torch.empty(0, dtype=dtype).element_size()
    return torch.empty(nbytes // itemsize, dtype=dtype, device="meta")


@pytest.mark.parametrize("nbytes, expected", [
    (0, 3),
    (1024, 3),
    (GIB, 3),               # exactly 1 GiB: still three sets
    (GIB + 4, 2),
    (4 * GIB, 2),           # exactly 4 GiB: two sets
    (4 * GIB + 4, 1),
    (40 * GIB, 1),
])
def test_input_set_count_thresholds(nbytes, expected):
    assert input_set_count([meta(nbytes)]) == expected


def test_input_set_count_sums_tensors_and_ignores_other_values():
    half = meta(GIB // 2 + 4)
    assert input_set_count([half, 3, "x", None]) == 3
    assert input_set_count([half, half, 3]) == 2


def test_input_set_count_uses_element_size():
    assert input_set_count([meta(GIB + 2, torch.float16)]) == 2
    n = (GIB // 8) + 1
    assert input_set_count([torch.empty(n, dtype=torch.float64, device="meta")]) == 2
    assert input_set_count([torch.empty(n, dtype=torch.int8, device="meta")]) == 3


def test_input_set_count_no_inputs():
    assert input_set_count([]) == 3


def test_large_inputs_keep_fewer_copies_while_timed():
    """Above LARGE_INPUT_BYTES one call is retained and one checked (an 8.6 GB task ran out of the GPU with
    two of each); smaller inputs keep the ring of two and the configured checks. Meta tensors: no memory."""
    small = [torch.empty(1024, 1024, device="meta")]
    large = [torch.empty(timing.LARGE_INPUT_BYTES // 4 + 1, device="meta")]
    assert timing.retention(small) == (timing.RETAINED, timing.TimingConfig().checked_calls)
    assert timing.retention(large) == (1, 1)
    assert timing.retention([3, torch.empty(4, device="meta")]) == (timing.RETAINED, timing.TimingConfig().checked_calls)


def test_the_spin_before_a_timed_call_covers_twice_the_usual_launch():
    assert timing.cover_ms([0.04] * 10) == pytest.approx(0.08)
    assert timing.cover_ms([]) == timing.MIN_COVER_MS


def test_one_slow_launch_does_not_lengthen_every_spin():
    assert timing.cover_ms([0.05] * 19 + [3.0]) == pytest.approx(0.10)


def test_the_spin_stays_within_its_bounds():
    assert timing.cover_ms([0.001] * 5) == timing.MIN_COVER_MS
    assert timing.cover_ms([40.0] * 5) == timing.MAX_COVER_MS
