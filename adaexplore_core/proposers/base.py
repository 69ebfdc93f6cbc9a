"""The Proposer protocol shared by the built-in and the LLM proposers.

A request carries the task, the step kind ("large": a new structure; "small": refine the parent), the
parent with its verdict and feedback, a pool (for a large step: the best kernel of each branch; for a small
step: the recent attempts), and the validity rules to respect.
The answer is candidate source plus a one-line description. Plain data, JSON-friendly.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..judge.verdict import Verdict
from ..task import TaskSpec

LARGE, SMALL = "large", "small"


class ProposalError(Exception):
    """The proposer cannot produce a candidate for this task; the message says why (e.g. an unsupported op)."""


class ProposerUnavailable(Exception):
    """The proposer cannot work at all (e.g. its LLM endpoint is dead or refuses the key): the search stops
    proposing and says why, once."""


@dataclass
class Candidate:
    """A judged (or not yet judged) candidate as proposers see it."""

    source: str
    description: str = ""
    verdict: Verdict | None = None
    feedback: str = ""
    meta: dict[str, Any] = field(default_factory=dict)   # proposer-private data (e.g. the built-in plan)


@dataclass
class ProposalRequest:
    task: TaskSpec
    step: str = LARGE
    parent: Candidate | None = None
    pool: list[Candidate] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    seed: int = 0
    branch: int = 0                 # how many children the expanded node has already (0: its first)

    def __post_init__(self) -> None:
        if self.step not in (LARGE, SMALL):
            raise ValueError(f"step must be {LARGE!r} or {SMALL!r}, not {self.step!r}")
        if self.step == SMALL and self.parent is None:
            raise ValueError("a small step refines a parent; none was given")


@dataclass
class Proposal:
    source: str
    description: str
    meta: dict[str, Any] = field(default_factory=dict)


class Proposer(Protocol):
    """Anything that turns a request into a candidate."""

    name: str

    def propose(self, request: ProposalRequest) -> Proposal:
        """One candidate for ``request``; raises ProposalError when none can be made."""
        ...
