"""What the server knows about one class's search: a ResultState and what goes with it."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from adaexplore_core.schema.report import host_bound_in_a_loop

from .jobs import RUNNING, Job


class ResultState(enum.Enum):
    NO_RESULT = "no_result"              # never searched (or its result is gone)
    QUEUED = "queued"                    # a job waits for its device
    RUNNING = "running"                  # a job searches now
    TIMED_FASTER = "timed_faster"        # validated and timed: faster than eager PyTorch
    TIMED_SLOWER = "timed_slower"        # validated and timed: not faster beyond the noise
    UNTIMED = "untimed"                  # validated by the Triton interpreter only, never timed
    NO_VALID = "no_valid"                # the search ended without a valid candidate
    APPLIED = "applied"                  # the class is the result the user applied
    STALE = "stale"                      # the result was computed for another class text, inputs or settings

    @property
    def can_apply(self) -> bool:
        return self in (ResultState.TIMED_FASTER, ResultState.TIMED_SLOWER, ResultState.UNTIMED)


@dataclass(frozen=True)
class ModuleStatus:
    state: ResultState
    result: dict[str, Any] | None = None
    job: Job | None = None
    stale_reason: str = ""


def job_state(job: Job) -> ResultState:
    return ResultState.RUNNING if job.state == RUNNING else ResultState.QUEUED


def result_state(result: dict[str, Any]) -> ResultState:
    """The state of a result computed for exactly this class text, inputs and settings."""
    best = result.get("best")
    if not best:
        return ResultState.NO_VALID
    if not best.get("timed"):
        return ResultState.UNTIMED
    return ResultState.TIMED_SLOWER if is_slower(best) else ResultState.TIMED_FASTER


def is_slower(best: dict[str, Any]) -> bool:
    """A timed kernel is not faster than eager PyTorch beyond the noise (its speedup's interval reaches 1), or
    not in a loop of calls (launching a call takes the host longer than eager's call)."""
    timing = best.get("timing") or {}
    low = timing.get("speedup_vs_eager_low")
    return (low if low is not None else best.get("speedup_vs_eager") or 0.0) <= 1.0 or host_bound_in_a_loop(timing)
