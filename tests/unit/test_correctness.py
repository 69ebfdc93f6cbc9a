"""Pure tensor tests of the correctness helpers, on the CPU; the launch counter in a subprocess."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import torch

from adaexplore_core.judge import correctness
from adaexplore_core.judge.correctness import (
    EXACT, FP32_TOLERANCE, FP64_TOLERANCE, LOW_PRECISION_TOLERANCE, Tolerance, aliased_outputs, compare_outputs,
    mutated, snapshot, tolerance_for,
)

NAN, INF = float("nan"), float("inf")


def ones(n: int = 8, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.ones(n, dtype=dtype)


def with_value(t: torch.Tensor, index: int, value: float) -> torch.Tensor:
    t = t.clone()
    t[index] = value
    return t


# tolerance_for -----------------------------------------------------------------------------------------

def test_tolerance_for_dtypes():
    assert tolerance_for(torch.float32) == FP32_TOLERANCE
    assert tolerance_for(torch.float64) == FP64_TOLERANCE
    assert tolerance_for(torch.float16) == LOW_PRECISION_TOLERANCE
    assert tolerance_for(torch.bfloat16) == LOW_PRECISION_TOLERANCE
    for dtype in (torch.int64, torch.int32, torch.uint8, torch.bool):
        assert tolerance_for(dtype) == EXACT


def test_override_applies_to_floats_not_integers():
    loose = Tolerance(atol=1.0, rtol=1.0, rel_l2=1.0)
    assert tolerance_for(torch.float32, loose) == loose
    assert tolerance_for(torch.int64, loose) == EXACT


# values ------------------------------------------------------------------------------------------------

def test_identical_outputs_pass():
    x = torch.randn(4, 5)
    assert compare_outputs([x], [x.clone()]) is None
    assert compare_outputs([x, x], (x.clone(), x.clone())) is None


def test_fp32_rtol_boundary():
    ref = ones()                                  # bound at |ref| = 1: 1e-4 + 1e-4 = 2e-4
    assert compare_outputs([ref], [with_value(ref, 3, 1 + 1.9e-4)]) is None
    check = compare_outputs([ref], [with_value(ref, 3, 1 + 2.1e-4)])
    assert check is not None and check.name == "values" and not check.passed
    assert "1 of 8 elements outside atol=0.0001 rtol=0.0001" in check.detail
    assert "at the worst element 1.00021 vs 1" in check.detail


def test_fp32_atol_boundary_at_zero():
    ref = torch.zeros(8)
    ref[0] = 1.0                                   # keeps the relative L2 check out of the way
    assert compare_outputs([ref], [with_value(ref, 5, 0.9e-4)]) is None
    check = compare_outputs([ref], [with_value(ref, 5, 1.1e-4)])
    assert check is not None and check.name == "values"


def test_fp16_is_looser_than_fp32():
    ref16 = ones(dtype=torch.float16)
    cand16 = with_value(ref16, 0, 1.0049)          # 5e-3 off: inside 1e-2 + 1e-2 * 1
    assert compare_outputs([ref16], [cand16]) is None
    check = compare_outputs([ref16.float()], [cand16.float()])
    assert check is not None and check.name == "values"
    check = compare_outputs([ref16], [with_value(ref16, 0, 1.03)])
    assert check is not None and check.name == "values"


def test_override_tolerance_is_used():
    ref = ones()
    cand = with_value(ref, 0, 1.01)
    assert compare_outputs([ref], [cand]) is not None
    assert compare_outputs([ref], [cand], Tolerance(atol=0.1, rtol=0.0, rel_l2=0.1)) is None


def test_integers_exact():
    ref = torch.arange(10)
    assert compare_outputs([ref], [ref.clone()]) is None
    check = compare_outputs([ref], [with_value(ref, 4, 5)], Tolerance(atol=10.0, rtol=10.0, rel_l2=10.0))
    assert check is not None and check.name == "values"
    assert check.detail == "output: 1 of 10 integer elements differ"


def test_bool_exact():
    ref = torch.tensor([True, False, True])
    check = compare_outputs([ref], [torch.tensor([True, True, True])])
    assert check is not None and check.name == "values"


def test_nan_where_reference_is_finite():
    ref = ones()
    check = compare_outputs([ref], [with_value(ref, 2, NAN)])
    assert check is not None and check.name == "finite"
    assert "1 NaN/Inf where the reference is finite" in check.detail


def test_finite_where_reference_is_nan():
    ref = with_value(ones(), 2, NAN)
    check = compare_outputs([ref], [ones()])
    assert check is not None and check.name == "finite"
    assert "finite values where the reference has NaN/Inf" in check.detail


def test_matching_nans_and_infs_pass():
    ref = torch.tensor([1.0, NAN, INF, -INF, 2.0])
    assert compare_outputs([ref], [ref.clone()]) is None


def test_inf_sign_mismatch_fails():
    ref = torch.tensor([1.0, INF, 2.0])
    check = compare_outputs([ref], [torch.tensor([1.0, -INF, 2.0])])
    assert check is not None and check.name == "finite"
    assert "differ from the reference's" in check.detail


def test_nan_versus_inf_fails():
    check = compare_outputs([torch.tensor([NAN, 1.0])], [torch.tensor([INF, 1.0])])
    assert check is not None and check.name == "finite"


def test_all_zeros_against_tiny_reference_fails_by_relative_l2():
    ref = torch.full((1000,), 1e-6)                # every element within atol of zero...
    check = compare_outputs([ref], [torch.zeros(1000)])
    assert check is not None and check.name == "values"
    assert "relative L2 error 1 exceeds 0.001" in check.detail


def test_all_zero_reference_skips_relative_l2():
    assert compare_outputs([torch.zeros(10)], [torch.full((10,), 1e-5)]) is None


@pytest.mark.filterwarnings("ignore:Casting complex values to real")
def test_complex_imaginary_part_is_compared():
    ref = torch.tensor([1 + 1j, 2 + 2j], dtype=torch.complex64)
    cand = torch.tensor([1 + 1j, 2 + 9j], dtype=torch.complex64)
    check = compare_outputs([ref], [cand])
    assert check is not None and check.name == "values"


# structure ---------------------------------------------------------------------------------------------

def test_output_count_mismatch():
    x = ones()
    check = compare_outputs([x, x], [x])
    assert check is not None and check.name == "output_structure"
    assert check.detail == "expected 2 output(s), got 1"


def test_shape_mismatch():
    check = compare_outputs([torch.zeros(2, 3)], [torch.zeros(3, 2)])
    assert check is not None and check.name == "output_structure"
    assert check.detail == "output: shape (3, 2), expected (2, 3)"


def test_dtype_mismatch_names_the_output():
    x = ones()
    check = compare_outputs([x, x], [x, x.double()])
    assert check is not None and check.name == "output_structure"
    assert check.detail == "output 1: dtype torch.float64, expected torch.float32"


def test_empty_outputs_pass():
    assert compare_outputs([torch.zeros(0, 3)], [torch.ones(0, 3)]) is None


# chunking ----------------------------------------------------------------------------------------------

def chunk_cases() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    # Multiples of 1/8 keep every float64 sum exact, so chunked and unchunked sums agree bit for bit.
    ref = (torch.arange(50, dtype=torch.float32) - 20) / 8
    cases = {"equal": (ref, ref.clone())}
    cand = ref.clone()
    cand[2] += 0.25                                 # first chunk: off, but not the worst
    cand[30] += 0.5                                 # a later chunk: the worst element
    cand[49] -= 0.125                               # the last, partial chunk
    cases["values"] = (ref, cand)
    cases["last_partial_chunk_only"] = (ref, with_value(ref, 49, 99.0))
    cases["nan_in_later_chunk"] = (ref, with_value(cand, 33, NAN))
    cases["ref_nonfinite_matching"] = (with_value(ref, 40, INF), with_value(ref, 40, INF))
    cases["ref_nonfinite_sign"] = (with_value(ref, 40, INF), with_value(ref, 40, -INF))
    tiny = torch.full((50,), 2.0 ** -20)
    cases["relative_l2"] = (tiny, torch.zeros(50))
    cases["int"] = (torch.arange(50), with_value(torch.arange(50), 45, -1))
    return cases


@pytest.mark.parametrize("name", list(chunk_cases()))
def test_chunked_comparison_matches_unchunked(name, monkeypatch):
    ref, cand = chunk_cases()[name]
    whole = compare_outputs([ref], [cand])
    monkeypatch.setattr(correctness, "COMPARE_CHUNK", 7)   # 50 elements: 7 full chunks and a partial one
    chunked = compare_outputs([ref], [cand])
    assert chunked == whole
    if name != "equal" and name != "ref_nonfinite_matching":
        assert chunked is not None


def test_chunked_worst_element_comes_from_a_later_chunk(monkeypatch):
    ref, cand = chunk_cases()["values"]
    monkeypatch.setattr(correctness, "COMPARE_CHUNK", 7)
    check = compare_outputs([ref], [cand])
    assert check is not None and check.name == "values"
    assert "3 of 50 elements" in check.detail
    assert "max abs error 0.5;" in check.detail
    assert f"at the worst element {float(cand[30]):.6g} vs {float(ref[30]):.6g}" in check.detail


def test_chunked_finds_an_error_in_the_last_partial_chunk(monkeypatch):
    ref, cand = chunk_cases()["last_partial_chunk_only"]
    monkeypatch.setattr(correctness, "COMPARE_CHUNK", 7)
    check = compare_outputs([ref], [cand])
    assert check is not None and "1 of 50 elements" in check.detail


# inputs: mutation and aliasing -------------------------------------------------------------------------

def test_mutated_reports_changed_tensor_indices():
    a, b, c = torch.zeros(3), torch.ones(3), torch.arange(3)
    inputs = [a, 7, b, c]
    before = snapshot(inputs)
    assert before[1] is None
    assert mutated(inputs, before) == []
    b.add_(1)
    c[0] = 5
    assert mutated(inputs, before) == [2, 3]


def test_snapshot_is_a_copy():
    x = torch.zeros(3)
    before = snapshot([x])
    x.fill_(1)
    assert torch.equal(before[0], torch.zeros(3))


def test_unchanged_nan_input_is_not_mutated():
    x = torch.tensor([NAN, 1.0])
    assert mutated([x], snapshot([x])) == []


def test_nan_overwritten_with_zero_is_mutation():
    x = torch.tensor([NAN, 1.0])
    before = snapshot([x])
    x[0] = 0.0
    assert mutated([x], before) == [0]


def test_aliased_outputs():
    x, y = torch.randn(4, 4), torch.randn(4)
    outputs = [x.view(16), x.clone(), y[1:], torch.empty(0)]
    assert aliased_outputs(outputs, [x, 3, y]) == {0, 2}
    assert aliased_outputs([x.clone()], [x]) == set()


def test_aliased_outputs_ignores_empty_inputs():
    e = torch.empty(0)
    assert aliased_outputs([torch.zeros(2)], [e]) == set()


# launch counter ----------------------------------------------------------------------------------------

LAUNCH_SCRIPT = textwrap.dedent('''
    import os
    assert os.environ["TRITON_INTERPRET"] == "1"
    import torch
    import triton
    import triton.language as tl
    from adaexplore_core.judge.correctness import LaunchCounter

    counter = LaunchCounter()
    counter.install()
    counter.install()                       # idempotent: launches must not count twice

    @triton.jit
    def add_one(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)

    x = torch.zeros(8)
    add_one[(1,)](x, 8, BLOCK=8)            # outside the block
    with counter.counting() as launches:
        add_one[(1,)](x, 8, BLOCK=8)
        add_one[(2,)](x, 8, BLOCK=4)
    with counter.counting() as none:
        pass
    moments = []                            # the two streams trial's hook: around every launch, then gone
    with counter.surrounding(lambda moment: moments.append((moment, float(x.sum())))):
        add_one[(1,)](x, 8, BLOCK=8)
    add_one[(1,)](x, 8, BLOCK=8)
    print("MOMENTS", moments)
    print("RESULT", launches[0], none[0], counter.count, float(x.sum()))
''')


def test_launch_counter_counts_interpreted_launches(tmp_path):
    script = tmp_path / "launch_count.py"      # a file: @triton.jit needs the kernel's source
    script.write_text(LAUNCH_SCRIPT, encoding="utf-8")
    env = dict(os.environ, TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")][-1]
    assert line.split()[1:] == ["2", "0", "5", "40.0"]
    moments = [ln for ln in out.stdout.splitlines() if ln.startswith("MOMENTS")][-1]
    assert moments == "MOMENTS [('before', 24.0), ('after', 32.0)]"


def test_buffer_tolerance_allows_a_rounding_of_the_buffers_dtype_and_no_more():
    ref = torch.tensor([17.5, 1.0, -3.0], dtype=torch.bfloat16)
    two_ulps = torch.tensor([17.75, 1.0, -3.0], dtype=torch.bfloat16)      # bf16 steps are 0.125 at 17.5
    assert correctness.compare_outputs([ref], [two_ulps]) is not None       # outside the output tolerance
    tolerance = correctness.buffer_tolerance(torch.bfloat16)
    assert correctness.compare_outputs([ref], [two_ulps], tolerance) is None
    ten_percent = torch.tensor([19.25, 1.0, -3.0], dtype=torch.bfloat16)
    assert correctness.compare_outputs([ref], [ten_percent], tolerance) is not None
    assert correctness.buffer_tolerance(torch.float32) == correctness.FP32_TOLERANCE   # fp32 ulps are tiny
    assert correctness.buffer_tolerance(torch.int64) == correctness.EXACT


def test_an_output_that_is_only_rounding_noise_is_held_to_atol_not_to_a_relative_error():
    """The mean of a group-normalised tensor is 0 in exact arithmetic; float32 gives noise of ~1e-8, and a
    candidate's noise may be larger than twice the reference's without being wrong."""
    exact = torch.full((8,), 1e-17, dtype=torch.float64)
    ref = torch.tensor([1.2e-8, -0.8e-8, 1.6e-8, 0.3e-8, -1.1e-8, 0.9e-8, -0.4e-8, 1.0e-8])
    noisier = ref * -4.0
    assert correctness.compare_outputs([ref], [noisier]) is not None                 # the relative L2 alone
    assert correctness.compare_outputs([ref], [noisier], exact=[exact]) is None
    assert correctness.compare_outputs([ref], [torch.full((8,), 1e-3)], exact=[exact]) is not None   # atol holds


def test_zeros_for_tiny_but_accurate_outputs_still_fail_against_float64():
    exact = torch.full((4, 50000), 1 / 50000, dtype=torch.float64)     # a softmax over many classes
    ref = exact.float()
    assert correctness.compare_outputs([ref], [torch.zeros_like(ref)], exact=[exact]) is not None


def test_the_relative_l2_error_of_huge_float32_outputs_does_not_overflow():
    """Compared in float32, the squares of 1e30 overflow; the norms are taken in float64."""
    from adaexplore_core.judge.correctness import Tolerance
    ref = torch.full((4096,), 1e30)
    cand = ref * (1 + 5e-5)                       # every element within rtol, the L2 error 5e-5 over rel_l2
    failure = compare_outputs([ref], [cand], Tolerance(atol=0.0, rtol=1e-4, rel_l2=1e-5))
    assert failure is not None and "relative L2 error 4.99e-05 exceeds" in failure.detail
    assert compare_outputs([ref], [ref.clone()], Tolerance(atol=0.0, rtol=1e-4, rel_l2=1e-5)) is None


def test_values_are_compared_in_chunks_with_the_worst_element_named(monkeypatch):
    from adaexplore_core.judge import correctness
    monkeypatch.setattr(correctness, "COMPARE_CHUNK", 1000)
    ref = torch.randn(4500)
    cand = ref.clone()
    cand[3210] += 1.0
    cand[10] = float("nan")
    assert "1 NaN/Inf where the reference is finite" in compare_outputs([ref], [cand]).detail
    cand[10] = ref[10]
    failure = compare_outputs([ref], [cand.to(torch.bfloat16).float()])
    assert failure is not None and failure.name == "values"
    detail = compare_outputs([ref], [cand]).detail
    assert detail.startswith("output: 1 of 4500 elements outside") and f"{float(cand[3210]):.6g} vs" in detail


def test_an_ill_conditioned_output_may_be_a_few_times_the_references_l2_error_from_float64():
    """Two honest float32 summation orders of a gradient that nearly cancels differ by more than 2x in their
    relative L2 error against float64 (CI 2026-12-04): up to 4x passes, more fails, every element within
    2x the reference's largest error either way."""
    exact = torch.tensor([0.05, -0.03, 0.02, 0.04] * 4, dtype=torch.float64)
    ref_error = torch.zeros(16, dtype=torch.float64)
    ref_error[0] = 1e-5                                          # the reference's rounding: in one element
    ref = (exact + ref_error).float()
    tight = correctness.Tolerance(atol=0.0, rtol=1e-4, rel_l2=1e-4)
    four = torch.zeros(16, dtype=torch.float64)
    four[4:8] = 1.8e-5                                           # L2 3.6x the reference's
    assert correctness.compare_outputs([ref], [(exact + four).float()], tight) is not None
    assert correctness.compare_outputs([ref], [(exact + four).float()], tight, [exact]) is None
    everywhere = torch.full((16,), 1.8e-5, dtype=torch.float64)   # L2 7.2x: each element as close, yet more
    assert correctness.compare_outputs([ref], [(exact + everywhere).float()], tight, [exact]) is not None
