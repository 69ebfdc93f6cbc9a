"""With the static guard off (as if a candidate got past it), nothing a candidate starts outlives it: a
grandchild that waits to forge the next candidate's verdict on the inherited protocol pipes is killed with it."""
from __future__ import annotations

from pathlib import Path

import pytest

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
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


@pytest.mark.xfail(strict=True, reason="judge gap (red team, 2026-12-02): the verdict is computed in the process "
                   "that runs the candidate, which keeps the protocol pipe: past the guard, a candidate that writes "
                   "memory through an int-to-pointer cast forges its own verdict and 'exited', stays alive and "
                   "answers the next requests")
def test_a_candidate_past_the_guard_cannot_forge_its_verdict_or_keep_the_slot():
    reference = TaskSpec.parse(str(DATA / "refs" / "rt_fused_bias_gelu.py"))
    attacker = (DATA / "candidates" / "rt_fused_bias_gelu" / "forged_exit_keeps_the_slot.py").read_text()
    honest = (REPO / "adaexplore_core" / "examples" / "fused_bias_gelu_triton.py").read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=60, memory_limit_mb=4096,
                         static_guard=False, timing=False)
    with JudgePool(config) as pool:
        forged = pool.judge(reference, attacker)
        after = pool.judge(reference, honest)
    assert not forged.ok, forged.to_json()
    assert after.ok, after.to_json()
