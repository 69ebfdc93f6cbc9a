"""A candidate stopped at the time limit leaves its Python stacks in the verdict's log: the user (and the
developer reading a GPU run's results) sees what was running when it was stopped."""
from __future__ import annotations

from pathlib import Path

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.task import TaskSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"


def test_a_timed_out_candidate_says_where_it_was():
    reference = TaskSpec.parse(str(DATA / "refs" / "pointwise.py"))
    hang = (DATA / "candidates" / "pointwise" / "hang.py").read_text()
    honest = (DATA / "candidates" / "pointwise" / "valid.py").read_text()
    with JudgePool(JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=8, memory_limit_mb=4096)) as pool:
        stopped = pool.judge(reference, hang, name="hang.py")
        after = pool.judge(reference, honest)
    assert stopped.stage == "timeout", stopped.to_json()
    # the forward it hung in, and the judge's stage that called it (its first call, before it takes the
    # reference's state, is on the warm-up inputs)
    assert "in forward" in stopped.log_tail and "in load_candidate" in stopped.log_tail, stopped.log_tail
    assert after.ok, after.to_json()             # the slot judges on after the kill
