"""Verdict: JSON round trip, validation of verdict and stage, failed_check."""
from __future__ import annotations

import json

import pytest

from adaexplore_core.judge.verdict import STAGES, Check, Timing, Verdict, error, invalid


def full_verdict() -> Verdict:
    timing = Timing(candidate_ms=0.125, candidate_iqr_ms=0.01, eager_ms=0.5, eager_iqr_ms=0.02,
                    compile_ms=None, compile_iqr_ms=None, speedup_vs_eager=4.0, speedup_vs_compile=None,
                    iterations=200, input_sets=3, compile_note="torch.compile failed: X")
    return Verdict(verdict="valid", reason="Validated", stage="ok",
                   checks=[Check("load", True, "module imported"), Check("weights", True)],
                   checkpoint_compatible=True, timing=timing, timing_note="", env={"device": "cuda:0", "gpu": "H"},
                   trials=5, seconds=1.5, log_tail="", envelope=ENVELOPE)


ENVELOPE = {
    "declared": {"device_types": ["cuda"], "inputs": [{"dtype": "torch.float32", "sizes": ["B", 256]}, {"value": True}],
                 "autograd": False},
    "shapes_timed": [[64, 256]],
    "shapes_validated": [{"label": "shape trial (B: 64 -> 7)", "shapes": [[7, 256]], "triton": True}],
    "shapes_skipped": [{"label": "shape trial (B: 64 -> 128)", "why": "skipped: too large"}],
    "gradients": "matched", "dtypes": ["torch.float32", "torch.bfloat16"], "modes": ["train", "eval"],
    "devices": ["cuda", "cpu"],
}


def test_json_round_trip_with_checks_and_timing():
    v = full_verdict()
    text = v.to_json()
    back = Verdict.from_json(text)
    assert back == v
    assert isinstance(back.timing, Timing) and isinstance(back.checks[0], Check)
    assert back.timing.compile_ms is None
    assert back.to_json() == text


def test_json_is_one_object_with_nested_plain_data():
    data = json.loads(full_verdict().to_json())
    assert data["timing"]["speedup_vs_eager"] == 4.0
    assert data["checks"][1] == {"name": "weights", "passed": True, "detail": ""}


def test_round_trip_without_timing():
    v = invalid("correctness", "wrong", [Check("load", True), Check("values", False, "off")])
    back = Verdict.from_json(v.to_json())
    assert back == v and back.timing is None and back.verdict == "invalid"


def test_round_trip_of_minimal_dict():
    v = Verdict.from_dict({"verdict": "error", "reason": "r", "stage": "internal"})
    assert v.checks == [] and v.timing is None and not v.ok and v.envelope == {}


def test_envelope_round_trip():
    data = json.loads(full_verdict().to_json())
    assert data["envelope"] == ENVELOPE
    back = Verdict.from_json(full_verdict().to_json())
    assert back.envelope == ENVELOPE and back.envelope["shapes_validated"][0]["triton"] is True
    assert Verdict("valid", "r", "ok").envelope == {} and Verdict("valid", "r", "ok").envelope is not \
        Verdict("valid", "r", "ok").envelope


@pytest.mark.parametrize("kwargs", [
    {"verdict": "passed", "reason": "", "stage": "ok"},
    {"verdict": "VALID", "reason": "", "stage": "ok"},
    {"verdict": "invalid", "reason": "", "stage": "typecheck"},
])
def test_invalid_values_raise(kwargs):
    with pytest.raises(ValueError, match="unknown"):
        Verdict(**kwargs)


def test_invalid_values_raise_from_json_too():
    text = json.dumps({"verdict": "valid", "reason": "", "stage": "nope"})
    with pytest.raises(ValueError, match="unknown stage 'nope'"):
        Verdict.from_json(text)


def test_every_stage_accepted():
    for stage in STAGES:
        assert Verdict("invalid", "r", stage).stage == stage


def test_failed_check_is_the_first_failure():
    v = invalid("correctness", "r", [Check("load", True), Check("a", False, "1"), Check("b", False, "2")])
    assert v.failed_check() == Check("a", False, "1")
    assert not v.ok


def test_failed_check_none_when_all_pass():
    assert full_verdict().failed_check() is None
    assert full_verdict().ok
    assert error("reference", "broken").failed_check() is None


def test_helpers_set_verdict_kind():
    assert invalid("guard", "r").verdict == "invalid"
    e = error("reference", "r", log_tail="t")
    assert (e.verdict, e.stage, e.log_tail) == ("error", "reference", "t")


def test_a_phase_records_its_wait_for_the_gpu_apart():
    """A phase's seconds include waiting while another slot's timing holds the GPU alone; the wait is also
    given apart, so throughput figures can tell work from waiting."""
    import time
    import types

    from adaexplore_core.judge.worker import Judging

    job = types.SimpleNamespace(phase_seconds={}, gpu_wait_s=0.0)
    with Judging.phase(job, "gradients"):
        job.gpu_wait_s += 0.25                  # what acquire() adds while it waits for "go"
        time.sleep(0.01)
    with Judging.phase(job, "dtypes"):
        pass
    assert job.phase_seconds["gradients.gpu_wait"] == 0.25 and job.phase_seconds["gradients"] >= 0.01
    assert "dtypes.gpu_wait" not in job.phase_seconds and "dtypes" in job.phase_seconds
