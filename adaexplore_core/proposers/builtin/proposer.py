"""The built-in proposer: offline, deterministic per seed, no LLM.

Large steps pick a fusion plan (``PlanOptions``) the pool does not have yet; small steps change one knob
(block size or warps) of one kernel of the parent. The plan options and knobs travel in the proposal's
``meta["builtin"]`` so a later small step can refine them.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random

import torch

from ...judge import guard
from ..base import LARGE, Candidate, Proposal, ProposalError, ProposalRequest
from .capture import Captured, capture
from .codegen import DEFAULT_KNOBS, generate
from .plan import Plan, PlanOptions, make_plan
from .rewrite import fold_linear_reductions

KNOB_CHOICES = {
    "pointwise": {"BLOCK_SIZE": [256, 512, 1024, 2048, 4096], "num_warps": [2, 4, 8]},
    "reduction": {"BLOCK_SIZE": [512, 1024, 2048, 4096, 8192], "num_warps": [2, 4, 8, 16],
                  "TILE": [1024, 2048, 4096, 8192]},
    "loss": {"BLOCK_SIZE": [1024, 2048, 4096, 8192], "num_warps": [4, 8, 16]},
    "stats": {"BLOCK_SIZE": [256, 512, 1024, 2048], "num_warps": [2, 4, 8]},
    "pool": {"BLOCK_SIZE": [128, 256, 512, 1024], "num_warps": [2, 4, 8]},
    "gemm": {"BLOCK_M": [32, 64, 128], "BLOCK_N": [32, 64, 128], "BLOCK_K": [16, 32, 64], "GROUP_M": [1, 4, 8],
             "num_warps": [4, 8], "num_stages": [2, 3, 4]},
}
MUTATION_TRIES = 8
BOUNDARY_MOVE_SHARE = 0.25      # of small steps: split a fused kernel at a node, or merge one back
PLAN_VARIANTS = (PlanOptions(), PlanOptions(split_bias=True), PlanOptions(gemm="triton"), PlanOptions(fuse=False),
                 PlanOptions(fold=False), PlanOptions(batch_norm="torch"), PlanOptions(pool="torch"))


class BuiltinProposer:
    """Proposes Triton candidates from the reference's own graph (see the package docstring)."""

    name = "builtin"

    def __init__(self, device_type: str | None = None) -> None:
        """``device_type``: where the candidates' Triton path runs ("cuda", or "cpu" for the interpreter);
        by default "cuda" when torch sees a GPU, else "cpu". Calls on other devices run the original forward."""
        self.device_type = device_type or ("cuda" if torch.cuda.is_available() else "cpu")
        self._captures: dict[tuple[str, str], Captured] = {}
        self._folded: dict[int, Captured | None] = {}      # by id of a capture held in self._captures

    def captured(self, request: ProposalRequest, batch_norm: str = "triton") -> Captured:
        """The traced reference; ``batch_norm="torch"``: with training-mode batch norms kept as modules."""
        key = (request.task.key(), batch_norm)
        if key not in self._captures:
            self._captures[key] = capture(request.task, training_batch_norms=batch_norm == "triton")
        return self._captures[key]

    def folded(self, captured: Captured) -> Captured:
        """``captured`` after the exact algebraic rewrites (itself when none applies)."""
        key = id(captured)
        if key not in self._folded:
            graph_module = fold_linear_reductions(captured.graph_module, captured.example_inputs)
            self._folded[key] = None if graph_module is None else dataclasses.replace(
                captured, graph_module=graph_module, modules=dict(graph_module.named_modules()))
        return self._folded[key] or captured

    def source_graph(self, request: ProposalRequest, options: PlanOptions) -> Captured:
        """The graph a plan with ``options`` is made from."""
        captured = self.captured(request, options.batch_norm)
        return self.folded(captured) if options.fold else captured

    def plans(self, request: ProposalRequest) -> list[tuple[Captured, Plan]]:
        """Distinct fusion plans for this module (with the graph each was made from), the default first."""
        plans: list[tuple[Captured, Plan]] = []
        seen: set[tuple] = set()
        for options in PLAN_VARIANTS:
            source = self.source_graph(request, options)
            plan = make_plan(source.graph_module, source.modules, options)
            signature = (tuple(tuple(n.name for n in k.nodes) for k in plan.kernels),
                         tuple(sorted(n.name for n in plan.split_nodes)))
            if plan.kernels and signature not in seen:
                seen.add(signature)
                plans.append((source, plan))
        return plans

    def propose(self, request: ProposalRequest) -> Proposal:
        plans = self.plans(request)
        if not plans:
            captured = self.captured(request)
            generate(captured, make_plan(captured.graph_module, captured.modules), device_type=self.device_type)   # raises
        rng = random.Random(request.seed)
        parent = request.parent.meta.get("builtin") if request.parent else None
        if request.step == LARGE or parent is None:
            used = [c.meta.get("builtin", {}).get("options") for c in request.pool]
            fresh = [p for p in plans if p[1].options.to_dict() not in used]
            graph, plan = fresh[0] if fresh else plans[rng.randrange(len(plans))]
            knobs: dict[int, dict[str, int]] = {} if fresh else _random_knobs(plan, rng)
            change = "default block sizes" if fresh else "random block sizes"
            source = generate(graph, plan, knobs, self.device_type)
        else:
            options = PlanOptions.from_dict(parent["options"])
            graph = self.source_graph(request, options)
            base = {int(k): dict(v) for k, v in parent.get("knobs", {}).items()}
            plan = make_plan(graph.graph_module, graph.modules, options)
            for _ in range(MUTATION_TRIES):         # some knobs do not apply to every kernel variant
                if rng.random() < BOUNDARY_MOVE_SHARE and _movable(plan):
                    moved = _move_boundary(plan, rng)
                    plan = make_plan(graph.graph_module, graph.modules, moved)
                    knobs, change = {}, f"fusion boundary moved ({_boundary_change(options, moved)})"
                else:
                    knobs = {k: dict(v) for k, v in base.items()}
                    change = _mutate_knob(plan, knobs, rng)
                source = generate(graph, plan, knobs, self.device_type)
                if source != request.parent.source:
                    break
                plan = make_plan(graph.graph_module, graph.modules, options)
        findings = guard.check_source(source, request.task.class_name, request.task.read_source())
        if findings:
            raise ProposalError(f"unsupported: the generated candidate breaks a judge rule "
                                f"({guard.summarize(findings)}); the reference's own code is the likely cause")
        folded = graph is not self.captured(request, plan.options.batch_norm)
        return Proposal(source=source, description=describe(plan, change, folded=folded),
                        meta={"builtin": {"options": plan.options.to_dict(),
                                          "knobs": {str(k): v for k, v in knobs.items()}}})

    def initial(self, request: ProposalRequest, count: int) -> list[Proposal]:
        """Up to ``count`` distinct candidates: every plan first, then knob variations of the default plan."""
        proposals: list[Proposal] = []
        digests: set[str] = set()
        pool: list[Candidate] = []
        rng = random.Random(request.seed)
        attempts = 0
        while len(proposals) < count and attempts < count * 8:
            attempts += 1
            step = ProposalRequest(task=request.task, step=LARGE, pool=pool, seed=rng.getrandbits(32))
            proposal = self.propose(step)
            digest = hashlib.sha256(proposal.source.encode()).hexdigest()
            if digest in digests:
                continue
            digests.add(digest)
            proposals.append(proposal)
            pool.append(Candidate(source=proposal.source, meta=proposal.meta))
        return proposals


def _movable(plan: Plan) -> bool:
    return plan.options.fuse and (bool(plan.options.boundaries) or
                                   any(k.kind == "pointwise" and len(k.nodes) > 1 for k in plan.kernels))


def _move_boundary(plan: Plan, rng: random.Random) -> PlanOptions:
    """Split a fused pointwise kernel before one of its nodes, or (half the time, when any) undo a split."""
    options = plan.options
    candidates = [n.name for k in plan.kernels if k.kind == "pointwise" for n in k.nodes[1:]]
    if options.boundaries and (not candidates or rng.random() < 0.5):
        dropped = rng.choice(sorted(options.boundaries))
        return dataclasses.replace(options, boundaries=tuple(b for b in options.boundaries if b != dropped))
    return dataclasses.replace(options, boundaries=tuple(sorted(set(options.boundaries) | {rng.choice(candidates)})))


def _boundary_change(before: PlanOptions, after: PlanOptions) -> str:
    added = sorted(set(after.boundaries) - set(before.boundaries))
    removed = sorted(set(before.boundaries) - set(after.boundaries))
    return f"split before {added[0]}" if added else f"merged at {removed[0]}"


def _knob_values(plan: Plan, knobs: dict[int, dict[str, int]], index: int) -> dict[str, int]:
    return {**DEFAULT_KNOBS[plan.kernels[index].kind], **knobs.get(index, {})}


def _random_knobs(plan: Plan, rng: random.Random) -> dict[int, dict[str, int]]:
    return {k.index: {name: rng.choice(values) for name, values in KNOB_CHOICES[k.kind].items()}
            for k in plan.kernels}


def _mutate_knob(plan: Plan, knobs: dict[int, dict[str, int]], rng: random.Random) -> str:
    """Change one knob of one kernel in place; returns what changed."""
    kernel = plan.kernels[rng.randrange(len(plan.kernels))]
    current = _knob_values(plan, knobs, kernel.index)
    name = rng.choice(sorted(KNOB_CHOICES[kernel.kind]))
    choices = [v for v in KNOB_CHOICES[kernel.kind][name] if v != current[name]]
    value = rng.choice(choices)
    knobs.setdefault(kernel.index, {})[name] = value
    return f"{kernel.name}: {name} {current[name]} -> {value}"


def describe(plan: Plan, change: str, folded: bool = False) -> str:
    """One line: what the kernels compute and what this step changed."""
    parts = []
    for k in plan.kernels:
        ops = "+".join(dict.fromkeys(plan.ops[n].name for n in k.nodes))
        parts.append(f"{k.kind} {ops}")
    extras = []
    if plan.split_nodes:
        extras.append("bias of " + ", ".join(sorted(n.name for n in plan.split_nodes)) + " fused")
    if not plan.options.fuse:
        extras.append("one kernel per op")
    if folded:
        extras.append("sum/mean over a linear layer folded into its weights")
    if plan.options.batch_norm == "torch":
        extras.append("training-mode batch norm left to cuDNN")
    if plan.options.pool == "torch":
        extras.append("pooling left to PyTorch")
    tail = f" ({'; '.join(extras)})" if extras else ""
    return f"{len(plan.kernels)} Triton kernel(s): {', '.join(parts)}{tail}; {change}"

