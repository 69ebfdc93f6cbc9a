"""With the static guard off (as if a candidate got past it), nothing a candidate starts outlives it: a
grandchild that waits to forge the next candidate's verdict on the inherited protocol pipes is killed with it."""
from __future__ import annotations

from pathlib import Path

import pytest

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.judge.verdict import Verdict
from adaexplore_core.task import TaskSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"
REPO = Path(__file__).resolve().parents[2]


def test_a_candidates_grandchild_cannot_judge_the_next_candidate():
    reference = TaskSpec.parse(str(DATA / "refs" / "pointwise.py"))
    attacker = (DATA / "guard_off" / "grandchild_forges_next_verdict.py").read_text()
    wrong = (DATA / "candidates" / "pointwise" / "nan_output.py").read_text()
    honest = (DATA / "candidates" / "pointwise" / "valid.py").read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=60, memory_limit_mb=4096,
                         static_guard=False)
    with JudgePool(config) as pool:
        pool.judge(reference, attacker)
        after_wrong = pool.judge(reference, wrong)
        after_honest = pool.judge(reference, honest)
    assert after_wrong.verdict == "invalid" and "forged" not in after_wrong.reason, after_wrong.to_json()
    assert after_honest.ok, after_honest.to_json()


def _attacker_then_honest() -> tuple[Verdict, Verdict]:
    """The red team's slot takeover past the guard (it writes memory through an int-to-pointer cast, forges its
    verdict and 'exited', then stays alive to answer the next requests), then the honest example."""
    reference = TaskSpec.parse(str(DATA / "refs" / "rt_fused_bias_gelu.py"))
    attacker = (DATA / "candidates" / "rt_fused_bias_gelu" / "forged_exit_keeps_the_slot.py").read_text()
    honest = (REPO / "adaexplore_core" / "examples" / "fused_bias_gelu_triton.py").read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=300, memory_limit_mb=4096,
                         static_guard=False, timing=False)
    with JudgePool(config) as pool:
        return pool.judge(reference, attacker), pool.judge(reference, honest)


@pytest.fixture(scope="module")
def takeover() -> tuple[Verdict, Verdict]:
    return _attacker_then_honest()


def test_a_candidate_cannot_report_its_own_exit_or_answer_the_next_request(takeover):
    """Its process never holds the pool's protocol descriptors: the zygote relays what it may say."""
    _, after = takeover
    assert after.ok, after.to_json()


def test_a_candidate_past_the_guard_cannot_forge_its_verdict():
    """Past the guard, a candidate that writes memory through an int-to-pointer cast sends a valid verdict for
    itself (red team, 2026-12-02); the witness process, where it never ran, finds no outputs of its own."""
    reference = TaskSpec.parse(str(DATA / "refs" / "rt_fused_bias_gelu.py"))
    attacker = (DATA / "guard_off" / "forged_verdict_then_exit.py").read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=300, memory_limit_mb=4096,
                         static_guard=False, timing=False)
    with JudgePool(config) as pool:
        forged = pool.judge(reference, attacker)
    assert not forged.ok, forged.to_json()
    assert forged.failed_check().name == "witnessed", forged.to_json()


def test_a_candidate_inherits_no_channel_but_its_own():
    """The kept witness's channel stays with the zygote: a candidate forked after a witnessed verdict holds one
    socket, its own (review, 2026-12-02: it held the witness's too, and could write checks into it)."""
    reference = TaskSpec.parse(str(DATA / "refs" / "pointwise.py"))
    honest = (DATA / "candidates" / "pointwise" / "valid.py").read_text()
    counter = (DATA / "guard_off" / "counts_inherited_sockets.py").read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=60, memory_limit_mb=4096,
                         static_guard=False, timing=False)
    with JudgePool(config) as pool:
        first = pool.judge(reference, honest)               # a witness is kept from here on
        probe = pool.judge(reference, counter)
    assert first.ok, first.to_json()
    assert probe.ok, probe.to_json()
