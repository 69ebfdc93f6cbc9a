"""The search tree of AdaExplore: nodes, rewards, UCB selection, step kinds and the diverse pool.

Pure Python (no torch, no judge): every decision here is a function of the tree, the config and a seeded
``random.Random``, so it is unit-tested without a GPU and a saved tree resumes exactly.

Shape of the tree: a virtual root (no source) whose children are independent branches started by large
steps; below them, small steps refine their parent and large steps write a new structure from a pool of
the best kernel of each branch. Selection walks down from the root: at each node it either descends into
the child with the highest UCB score or expands the node itself (an "expand" option scored like a child).
"""
from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterator

from ..schema.report import host_bound_in_a_loop

LARGE, SMALL = "large", "small"
ROOT = 0
PENDING, JUDGED = "pending", "judged"

# Verdict stages that mean "did not compile / load" (no reward) and "compiled but crashed or hung"
# (the smallest reward); a wrong result that ran gets a little more (it is closer to a valid kernel).
_NOT_COMPILED = {"guard", "load", "compile"}
_CRASHED = {"runtime", "timeout", "crash", "memory"}


@dataclass(frozen=True)
class SearchConfig:
    """Every constant of the search, in one place (defaults: the paper's level-2 settings)."""

    c: float = 0.3                        # UCB exploration constant
    expand_weight: float = 0.3            # value of the "expand this node" option in selection
    p_large: float = 0.2                  # probability of a large step when none is forced
    small_children_before_large: int = 2  # a node with this many small-step children gets a large step
    pool_size: int = 5                    # best kernels (one per branch) shown to a large step
    reward_crashed: float = 0.05          # compiled, then crashed / hung / ran out of memory
    reward_wrong: float = 0.1             # ran, but the result was wrong
    reward_valid: float = 0.4             # valid: 0.4 + 1.2 * (clip(speedup, 0.1, 10) - 0.1) / 9.9
    reward_speed_scale: float = 1.2
    speedup_min: float = 0.1
    speedup_max: float = 10.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SearchConfig":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def reward(verdict: dict[str, Any] | None, config: SearchConfig = SearchConfig()) -> float:
    """The paper's reward from a verdict (as ``Verdict.to_dict()``): 0 when it does not compile, a little
    when it compiles but is wrong, 0.4 + 1.2 * (clip(speedup, 0.1, 10) - 0.1) / 9.9 when valid. A valid
    candidate that was not timed (CPU, interpreter) counts as speedup 1.0: valid, no speed claim. Judge
    errors (the reference or the judge itself failed) are not the candidate's fault and score 0."""
    if not verdict:
        return 0.0
    if verdict.get("verdict") == "valid":
        speedup = speedup_of(verdict)
        s = min(max(1.0 if speedup is None else speedup, config.speedup_min), config.speedup_max)
        return config.reward_valid + config.reward_speed_scale * (s - config.speedup_min) / (
            config.speedup_max - config.speedup_min)
    stage = verdict.get("stage", "")
    if stage == "correctness":
        return config.reward_wrong
    if stage in _CRASHED:
        return config.reward_crashed
    return 0.0


def speedup_of(verdict: dict[str, Any] | None, baseline: str = "eager") -> float | None:
    """The measured speedup of a valid verdict over ``eager`` or ``compile``; None when not timed."""
    if not verdict or verdict.get("verdict") != "valid" or not verdict.get("timing"):
        return None
    return verdict["timing"].get(f"speedup_vs_{baseline}")


@dataclass
class Node:
    id: int
    parent: int | None
    step: str                              # LARGE | SMALL ("" for the root)
    source: str = ""
    description: str = ""
    meta: dict[str, Any] = field(default_factory=dict)     # proposer-private (e.g. the built-in plan)
    status: str = JUDGED                   # PENDING while the judge has it
    verdict: dict[str, Any] | None = None  # Verdict.to_dict()
    reward: float = 0.0
    children: list[int] = field(default_factory=list)
    visits: int = 0
    reward_sum: float = 0.0
    duplicate_of: int | None = None        # same source as another node: that node's verdict is reused

    @property
    def valid(self) -> bool:
        return bool(self.verdict) and self.verdict.get("verdict") == "valid"

    def mean_reward(self) -> float:
        return self.reward_sum / self.visits if self.visits else 0.0


class Tree:
    """Nodes by id; node 0 is the virtual root."""

    def __init__(self, config: SearchConfig = SearchConfig()) -> None:
        self.config = config
        self.nodes: dict[int, Node] = {ROOT: Node(id=ROOT, parent=None, step="")}

    # structure
    def add(self, parent: int, step: str, source: str, description: str = "", meta: dict[str, Any] | None = None
            ) -> Node:
        """A pending child of ``parent``; ``record`` gives it its verdict."""
        if parent not in self.nodes:
            raise KeyError(f"no node {parent}")
        node = Node(id=max(self.nodes) + 1, parent=parent, step=step, source=source, description=description,
                    meta=dict(meta or {}), status=PENDING)
        self.nodes[node.id] = node
        self.nodes[parent].children.append(node.id)
        return node

    def record(self, node_id: int, verdict: dict[str, Any], duplicate_of: int | None = None) -> float:
        """Attach a verdict, compute the reward and back it up the path to the root; returns the reward."""
        node = self.nodes[node_id]
        if node.status != PENDING:
            raise ValueError(f"node {node_id} was already judged")
        node.verdict, node.status, node.duplicate_of = verdict, JUDGED, duplicate_of
        node.reward = reward(verdict, self.config)
        for n in self.path(node_id):
            n.visits += 1
            n.reward_sum += node.reward
        return node.reward

    def path(self, node_id: int) -> list[Node]:
        """The nodes from the root down to ``node_id``."""
        out = []
        current: int | None = node_id
        while current is not None:
            out.append(self.nodes[current])
            current = self.nodes[current].parent
        return out[::-1]

    def subtree(self, node_id: int) -> Iterator[Node]:
        stack = [node_id]
        while stack:
            node = self.nodes[stack.pop()]
            yield node
            stack.extend(reversed(node.children))

    def candidates(self) -> list[Node]:
        """Every node but the root, in creation order."""
        return [n for i, n in sorted(self.nodes.items()) if i != ROOT]

    def pending(self) -> list[Node]:
        return [n for n in self.candidates() if n.status == PENDING]

    def judged(self) -> list[Node]:
        return [n for n in self.candidates() if n.status == JUDGED]

    def find_source(self, source: str) -> Node | None:
        """The first judged node with exactly this source."""
        return next((n for n in self.judged() if n.source == source and n.duplicate_of is None), None)

    def best(self, nodes: Iterator[Node] | list[Node] | None = None) -> Node | None:
        """The best valid node: highest measured speedup over eager, those no faster in a loop of calls (slower
        to launch than eager's call: schema.report.host_bound_in_a_loop) after the others; untimed valid nodes
        rank by reward and then by age (the earliest wins a tie)."""
        valid = [n for n in (self.candidates() if nodes is None else nodes) if n.valid and n.status == JUDGED]
        if not valid:
            return None
        return max(valid, key=lambda n: (not host_bound_in_a_loop((n.verdict or {}).get("timing") or {}),
                                         speedup_of(n.verdict) or 0.0, n.reward, -n.id))

    # selection
    def ucb(self, node: Node, parent_visits: int) -> float:
        """Mean reward plus the exploration bonus; pending children count as visits with no reward (a
        virtual loss), so candidates prepared in parallel spread over the tree."""
        visits = node.visits + self._pending_below(node.id)
        if visits == 0:
            return math.inf
        return node.reward_sum / visits + self.config.c * math.sqrt(math.log(max(parent_visits, 1)) / visits)

    def expand_score(self, node: Node) -> float:
        """The "expand this node" option, scored like a child that has been chosen once per existing child."""
        visits = node.visits + self._pending_below(node.id)
        return self.config.expand_weight + self.config.c * math.sqrt(
            math.log(visits + 1) / (len(node.children) + 1))

    def _pending_below(self, node_id: int) -> int:
        return sum(1 for n in self.subtree(node_id) if n.status == PENDING)

    def select(self) -> Node:
        """Walk down from the root by UCB until expanding the current node scores at least as well as any
        child. Pending children (still with the judge) are not entered; failed leaves can be expanded (a
        small step may repair them)."""
        node = self.nodes[ROOT]
        while True:
            children = [self.nodes[c] for c in node.children if self.nodes[c].status == JUDGED]
            if not children:
                return node
            parent_visits = node.visits + self._pending_below(node.id)
            best_child = max(children, key=lambda c: (self.ucb(c, parent_visits), -c.id))
            if node.id != ROOT and self.expand_score(node) >= self.ucb(best_child, parent_visits):
                return node
            if node.id == ROOT and self.expand_score(node) > self.ucb(best_child, parent_visits):
                return node                     # a new branch from scratch
            node = best_child

    def step_kind(self, node: Node, rng: random.Random) -> str:
        """LARGE at the root and once a node has enough small-step children; else LARGE with p_large."""
        if node.id == ROOT or not node.source:
            return LARGE
        small = sum(1 for c in node.children if self.nodes[c].step == SMALL)
        if small >= self.config.small_children_before_large:
            return LARGE
        return LARGE if rng.random() < self.config.p_large else SMALL

    def pool(self, node: Node) -> list[Node]:
        """The diverse pool for a large step at ``node``: the best valid kernel of each refinement branch
        (each child subtree of a node on the root-to-``node`` path), best first, at most pool_size."""
        chosen: dict[int, Node] = {}
        for ancestor in self.path(node.id):
            for child in ancestor.children:
                best = self.best(list(self.subtree(child)))
                if best is not None:
                    chosen[best.id] = best
        ranked = sorted(chosen.values(), key=lambda n: (-(speedup_of(n.verdict) or 0.0), -n.reward, n.id))
        return ranked[:self.config.pool_size]

    # persistence
    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config.to_dict(), "nodes": [asdict(n) for _, n in sorted(self.nodes.items())]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Tree":
        tree = cls(SearchConfig.from_dict(data.get("config", {})))
        tree.nodes = {}
        for raw in data["nodes"]:
            node = Node(**raw)
            tree.nodes[node.id] = node
        if ROOT not in tree.nodes:
            raise ValueError("a saved tree without its root")
        return tree
