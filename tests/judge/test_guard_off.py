"""With the static guard off (as if a candidate got past it), nothing a candidate starts outlives it: a
grandchild that waits to forge the next candidate's verdict on the inherited protocol pipes is killed with it."""
from __future__ import annotations

from pathlib import Path

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.task import TaskSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"


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
