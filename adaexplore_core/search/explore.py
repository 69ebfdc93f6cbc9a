"""The search loop: select a node, propose a candidate, judge it, back the reward up; repeat for N steps.

One step is one candidate (judged, or a duplicate of a judged one whose verdict is reused). While earlier
candidates are with the judge pool (spread over its devices and workers), the next ones are selected and
proposed; verdicts are taken in submission order, so a run is reproducible per seed wherever the verdicts
are (always on the CPU, where only validity counts). The tree is saved after every change, pending
candidates included, so ``resume`` continues exactly where an interrupted run stopped. (Extending a
finished run with more steps continues its tree too, but equals one longer run only when candidates are
judged one at a time: a longer run proposes step k+1 while step k is still with the judge.)

Files in ``out``: tree.json (the whole tree), best.py (the best valid ModelNew), report.json, summary.md.
"""
from __future__ import annotations

import collections
import concurrent.futures
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..judge.verdict import Verdict
from ..schema.report import BEST_FILE, REPORT_FILE, SUMMARY_FILE, TREE_FILE, headline
from ..proposers.base import Candidate, ProposalError, ProposalRequest, Proposer, ProposerUnavailable
from ..task import TaskSpec
from .events import EventSink
from .tree import LARGE, ROOT, Node, SearchConfig, Tree, speedup_of

DUPLICATE_RETRIES = 4          # new seeds tried when a proposal repeats an earlier candidate
PROPOSAL_FAILURES_ALLOWED = 5  # consecutive proposer errors before the search gives up
RECENT_FOR_SMALL_STEPS = 4     # recent judged candidates a small step's request carries


class SearchError(Exception):
    """The search cannot start or continue; the message says why."""


@dataclass
class SearchResult:
    tree: Tree
    steps: int
    interrupted: bool = False
    stopped_reason: str = ""
    proposer_unavailable: bool = False     # stopped because the proposer cannot work (e.g. a dead endpoint)
    best: Node | None = None
    report: dict[str, Any] = field(default_factory=dict)


def candidate_of(node: Node) -> Candidate:
    """A tree node as proposers see it: source, verdict and the judge's reason as feedback."""
    verdict = Verdict.from_dict(node.verdict) if node.verdict else None
    return Candidate(source=node.source, description=node.description, verdict=verdict,
                     feedback=verdict.reason if verdict else "", meta=node.meta)


class Search:
    """One search job. ``pool`` is a JudgePool (or anything with ``submit(task, source) -> Future``)."""

    def __init__(self, task: TaskSpec, proposer: Proposer, pool: Any, steps: int, out: Path,
                 events: EventSink, config: SearchConfig = SearchConfig(), seed: int = 0, resume: bool = False,
                 parallel: int = 1, devices: tuple[str, ...] = (), rules: list[str] | None = None,
                 learner: Any = None) -> None:
        if steps < 1:
            raise SearchError("--steps must be at least 1")
        self.task, self.proposer, self.pool = task, proposer, pool
        self.steps, self.out, self.events = steps, Path(out), events
        self.seed, self.parallel, self.devices = seed, max(1, parallel), devices
        self.rules = list(rules or [])          # validity rules for every prompt
        self.learner = learner                  # turns failures into rules (memory.distill.RuleLearner)
        self.tree = self._load_or_create(config, resume)
        self.in_flight: collections.deque[tuple[int, concurrent.futures.Future]] = collections.deque()
        self._last_usage: dict[str, Any] | None = None

    # persistence
    def _load_or_create(self, config: SearchConfig, resume: bool) -> Tree:
        path = self.out / TREE_FILE
        if not path.exists():
            return Tree(config)
        if not resume:
            raise SearchError(f"{path} exists (an earlier search); pass --resume to continue it, or choose "
                              "another --out folder")
        try:
            data = json.loads(path.read_text())
            tree = Tree.from_dict(data["tree"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SearchError(f"cannot resume: {path} is not a saved search tree ({e})") from e
        if data.get("task") != self.task.key():
            raise SearchError(f"cannot resume: {path} is a search of {data.get('reference')!r} as it was then "
                              f"(key {data.get('task')}); the reference's text or class differs now "
                              f"({self.task.key()}); choose another --out folder for a new search")
        self.seed = data.get("seed", self.seed)
        return tree

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.out / TREE_FILE, json.dumps(
            {"task": self.task.key(), "reference": reference_name(self.task), "seed": self.seed,
             "proposer": self.proposer.name, "tree": self.tree.to_dict()}))

    # the loop
    def run(self) -> SearchResult:
        resumed = len(self.tree.judged())
        self.events.emit("job_started", task=reference_name(self.task), steps=self.steps,
                         proposer=self.proposer.name, devices=list(self.devices), out=str(self.out),
                         resumed_steps=resumed)
        for node in self.tree.pending():          # an interrupted run's candidates: judge them again
            original = self.tree.nodes.get(node.duplicate_of) if node.duplicate_of is not None else None
            if original is not None and original.verdict is not None:   # judged since: reuse, in queue order
                done: concurrent.futures.Future = concurrent.futures.Future()
                done.set_result(Verdict.from_dict(original.verdict))
                self.in_flight.append((node.id, done))
            elif original is not None:            # its twin is pending too: share the twin's verdict
                self.in_flight.append((node.id, dict(self.in_flight)[original.id]))
            else:
                self.in_flight.append((node.id, self.pool.submit(self.task, node.source)))
        best = self.tree.best()
        failures, stopped, unavailable = 0, "", False
        interrupted = False
        try:
            while True:
                while not stopped and len(self.in_flight) < self.parallel and \
                        len(self.tree.candidates()) < self.steps:
                    try:
                        self._propose_one()
                        failures = 0
                    except ProposerUnavailable as e:
                        if not self.tree.candidates():
                            raise SearchError(str(e)) from e
                        stopped, unavailable = str(e), True
                        self.events.emit("error", message=f"proposer: {e}", fatal=False)
                        break
                    except ProposalError as e:
                        if not self.tree.candidates():
                            raise SearchError(str(e)) from e
                        failures += 1
                        self.events.emit("error", message=f"proposer: {e}", fatal=False)
                        if failures >= PROPOSAL_FAILURES_ALLOWED:
                            stopped = f"the proposer failed {failures} times in a row (last: {e})"
                            break
                if not self.in_flight:
                    break
                node_id, future = self.in_flight.popleft()
                self._record(node_id, future.result().to_dict(), self.tree.nodes[node_id].duplicate_of)
                best = self._announce_best(best)
        except KeyboardInterrupt:
            interrupted = True
            for _, future in self.in_flight:
                future.cancel()
        if not interrupted:
            try:
                self._retime_best()
            except KeyboardInterrupt:
                interrupted = True
        self.save()
        result = SearchResult(tree=self.tree, steps=len(self.tree.judged()), interrupted=interrupted,
                              stopped_reason=stopped, proposer_unavailable=unavailable, best=self.tree.best())
        result.report = write_outputs(self, result)
        b = result.best
        valid = sum(1 for n in self.tree.judged() if n.valid)
        judged = len(self.tree.judged())
        self.events.emit("job_finished", steps=judged, valid=valid, valid_share=valid / judged if judged else 0.0,
                         best_node=b.id if b else None, speedup_vs_eager=speedup_of(b.verdict) if b else None,
                         speedup_vs_compile=speedup_of(b.verdict, "compile") if b else None,
                         timed=bool(b and speedup_of(b.verdict) is not None), interrupted=interrupted,
                         out=str(self.out))
        return result

    def _retime_best(self) -> None:
        """Judge the timed winner again, afresh, with more timing rounds interleaved with both baselines; its
        new verdict is the one written to best.py, the report and the editor. A winner that fails the second
        judging, or is no longer the best with its new timing, gives way to the next best, which is judged
        again too (RETIME_TRIES judgings at most)."""
        for _ in range(RETIME_TRIES):
            best = self.tree.best()
            if best is None or speedup_of(best.verdict) is None or (best.verdict or {}).get("retimed"):
                return
            first = best.verdict
            verdict = self.pool.submit(self.task, best.source, rounds=RETIME_ROUNDS).result().to_dict()
            verdict["retimed"] = True
            verdict["first_timing"] = (first or {}).get("timing")
            best.verdict = verdict
            self.events.emit("best_retimed", node=best.id, valid=verdict.get("verdict") == "valid",
                             speedup_vs_eager=speedup_of(verdict), speedup_vs_compile=speedup_of(verdict, "compile"),
                             first_speedup_vs_eager=((first or {}).get("timing") or {}).get("speedup_vs_eager"))

    def _propose_one(self) -> None:
        """Select, propose (retrying repeats with new seeds), then submit or reuse a duplicate's verdict."""
        attempt = 0
        while True:
            rng = random.Random(f"{self.seed}:{len(self.tree.nodes)}:{attempt}")
            node = self.tree.select()
            kind = self.tree.step_kind(node, rng)
            proposal = self.proposer.propose(self._request(node, kind, rng))
            earlier = self.tree.find_source(proposal.source)
            twin = next(((i, f) for i, f in self.in_flight if self.tree.nodes[i].source == proposal.source), None)
            if (earlier is None and twin is None) or attempt >= DUPLICATE_RETRIES:
                break
            attempt += 1
        client = getattr(self.proposer, "client", None)
        usage = client.usage.to_dict() if client is not None and hasattr(client, "usage") else None
        if usage and usage["requests"] and usage != self._last_usage:   # the model was asked: running totals
            self._last_usage = usage
            self.events.emit("llm_usage", **usage)
        child = self.tree.add(node.id, kind, proposal.source, proposal.description, proposal.meta)
        if earlier is not None:
            self._record(child.id, earlier.verdict, duplicate_of=earlier.id)
            return
        if twin is not None:         # the same source is with the judge already: share its verdict
            child.duplicate_of = twin[0]
        self.save()
        if twin is not None:
            self.in_flight.append((child.id, twin[1]))
            return
        self.in_flight.append((child.id, self.pool.submit(self.task, proposal.source)))

    def _request(self, node: Node, kind: str, rng: random.Random) -> ProposalRequest:
        parent = candidate_of(node) if node.id != ROOT else None
        if kind == LARGE:          # the best of each branch, then what the judge has now (so as not to repeat it)
            pool = [candidate_of(n) for n in self.tree.pool(node)] + \
                [candidate_of(self.tree.nodes[i]) for i, _ in self.in_flight]
        else:                      # a refinement sees the most recent attempts and their verdicts
            pool = [candidate_of(n) for n in self.tree.judged()[-RECENT_FOR_SMALL_STEPS:]]
        return ProposalRequest(task=self.task, step=kind if parent is not None else LARGE, parent=parent,
                               pool=pool, rules=self.rules, seed=rng.getrandbits(32), branch=len(node.children))

    def _record(self, node_id: int, verdict: dict[str, Any], duplicate_of: int | None = None) -> None:
        reward = self.tree.record(node_id, verdict, duplicate_of)
        self.save()
        node = self.tree.nodes[node_id]
        self.events.emit("candidate_judged", step=len(self.tree.judged()), steps=self.steps, node=node.id,
                         parent=node.parent if node.parent is not None else ROOT, kind=node.step,
                         verdict=verdict.get("verdict", ""), stage=verdict.get("stage", ""),
                         reason=verdict.get("reason", ""), description=node.description, reward=reward,
                         speedup_vs_eager=speedup_of(verdict), speedup_vs_compile=speedup_of(verdict, "compile"),
                         duplicate=duplicate_of is not None, seconds=float(verdict.get("seconds", 0.0)))
        if self.learner is not None and duplicate_of is None and not node.valid:
            self._learn(verdict, node.source)

    def _learn(self, verdict: dict[str, Any], source: str) -> None:
        try:
            learned = self.learner.learn(verdict, source)
        except ProposerUnavailable as e:          # the model cannot distill now: stop learning, keep searching
            self.learner = None
            self.events.emit("error", message=f"rule learning stopped: {e}", fatal=False)
            return
        if learned is not None:
            self.events.emit("rule_learned", rule=learned.rule, score=learned.score)

    def _announce_best(self, previous: Node | None) -> Node | None:
        best = self.tree.best()
        if best is not None and (previous is None or best.id != previous.id):
            self.events.emit("best_improved", step=len(self.tree.judged()), node=best.id,
                             speedup_vs_eager=speedup_of(best.verdict),
                             speedup_vs_compile=speedup_of(best.verdict, "compile"),
                             timed=speedup_of(best.verdict) is not None, description=best.description,
                             gpu=(best.verdict.get("env") or {}).get("gpu"))
        return best


RETIME_ROUNDS = 8     # timing rounds for the winner's second, fresh judging
RETIME_TRIES = 3


def reference_name(task: TaskSpec) -> str:
    return f"{task.path}::{task.class_name}"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


REJECTIONS_SHOWN = 3


def rejections(nodes: list[Node]) -> list[dict[str, Any]]:
    """The most common reasons candidates were rejected, most common first: candidates grouped by their
    stage and first failed check (reasons differ in their numbers), each group with its first reason."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for node in nodes:
        v = node.verdict or {}
        if node.valid or not v or node.duplicate_of is not None:
            continue
        failed = next((c for c in v.get("checks") or [] if not c.get("passed")), {})
        key = (str(v.get("stage")), str(failed.get("name", "")))
        group = groups.setdefault(key, {"reason": v.get("reason") or "", "stage": key[0], "check": key[1],
                                        "count": 0})
        group["count"] += 1
    ranked = sorted(groups.values(), key=lambda g: -g["count"])      # stable: the first seen wins ties
    return ranked[:REJECTIONS_SHOWN]


def _verdict_summary(node: Node) -> dict[str, Any]:
    v = node.verdict or {}
    return {"node": node.id, "parent": node.parent, "step": node.step, "description": node.description,
            "verdict": v.get("verdict"), "stage": v.get("stage"), "reason": v.get("reason"),
            "reward": round(node.reward, 4), "speedup_vs_eager": speedup_of(v),
            "speedup_vs_compile": speedup_of(v, "compile"), "duplicate_of": node.duplicate_of}


def write_outputs(search: Search, result: SearchResult) -> dict[str, Any]:
    """best.py, report.json and summary.md for the tree as it stands."""
    out, tree = search.out, search.tree
    judged = tree.judged()
    best = result.best
    valid = [n for n in judged if n.valid]
    report: dict[str, Any] = {
        "task": reference_name(search.task), "task_key": search.task.key(), "class": search.task.class_name,
        "proposer": search.proposer.name,
        "seed": search.seed, "steps_requested": search.steps, "steps": len(judged), "valid": len(valid),
        "valid_share": len(valid) / len(judged) if judged else 0.0, "interrupted": result.interrupted,
        "stopped_reason": result.stopped_reason, "devices": list(search.devices),
        "config": tree.config.to_dict(), "best": None,
        "candidates": [_verdict_summary(n) for n in judged],
        "rejections": rejections(judged),
    }
    best_path = out / BEST_FILE
    if best is not None:
        v = best.verdict or {}
        report["best"] = {**_verdict_summary(best), "timed": speedup_of(v) is not None, "timing": v.get("timing"),
                          "retimed": bool(v.get("retimed")), "first_timing": v.get("first_timing"),
                          "checks": v.get("checks"), "checkpoint_compatible": v.get("checkpoint_compatible"),
                          "env": v.get("env"), "envelope": v.get("envelope"), "file": str(best_path)}
        _write_atomic(best_path, best.source)
    elif best_path.exists():
        best_path.unlink()                      # a stale winner from another run must not be shown
    _write_atomic(out / REPORT_FILE, json.dumps(report, indent=2))
    _write_atomic(out / SUMMARY_FILE, summary_markdown(report))
    return report


def summary_markdown(report: dict[str, Any]) -> str:
    lines = [f"# AdaExplore search: {report['task']}", "",
             f"- proposer: {report['proposer']}, seed {report['seed']}, devices: "
             f"{', '.join(report['devices']) or 'n/a'}",
             f"- steps: {report['steps']} of {report['steps_requested']}"
             + (" (interrupted)" if report["interrupted"] else "")
             + (f" (stopped: {report['stopped_reason']})" if report["stopped_reason"] else ""),
             f"- valid candidates: {report['valid']} ({report['valid_share']:.0%})",
             f"- best: {headline(report['best'])}"]
    for r in report.get("rejections") or []:
        lines.append(f"- rejected {r['count']}x at {r['stage']}" + (f" ({r['check']})" if r["check"] else "")
                     + f": {r['reason']}")
    if report["best"]:
        lines.append(f"  node {report['best']['node']}: {report['best']['description']} -> `best.py`")
    lines += ["", "| node | parent | step | verdict | vs eager | vs compile | description |",
              "|---|---|---|---|---|---|---|"]
    for c in report["candidates"]:
        fmt = lambda x: f"{x:.2f}x" if x else "-"  # noqa: E731
        verdict = c["verdict"] if c["verdict"] == "valid" else f"{c['verdict']} ({c['stage']})"
        lines.append(f"| {c['node']} | {c['parent']} | {c['step']} | {verdict} | {fmt(c['speedup_vs_eager'])} | "
                     f"{fmt(c['speedup_vs_compile'])} | {c['description']} |")
    return "\n".join(lines) + "\n"
