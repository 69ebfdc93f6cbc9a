"""The search loop (adaexplore_core.search.explore) end to end on the CPU: a real JudgePool (Triton
interpreter, two workers) and the built-in proposer on a small reference. Checks the files a run writes,
the events it emits, resume (after a shorter run, after an interruption, with a changed reference),
proposer failures and duplicate candidates.

All runs share one judge pool; candidates on the CPU are valid but "not timed".
"""
from __future__ import annotations

import concurrent.futures
import io
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.proposers.base import Proposal, ProposalError, ProposalRequest
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer
from adaexplore_core.schema.events import parse_line, validate
from adaexplore_core.search.events import EventSink
from adaexplore_core.schema.report import BEST_FILE, REPORT_FILE, SUMMARY_FILE, TREE_FILE, headline
from adaexplore_core.search.explore import (DUPLICATE_RETRIES, PROPOSAL_FAILURES_ALLOWED, Search, SearchError,
                                            rejections, summary_markdown)
from adaexplore_core.search.tree import JUDGED, PENDING, ROOT, Node, SearchConfig, Tree
from adaexplore_core.task import TaskSpec

ROOT_DIR = Path(__file__).resolve().parents[2]
REFERENCE = ROOT_DIR / "tests" / "data" / "proposers" / "linear_epilogue.py"
CONFIG = JudgeConfig(devices=("cpu",), workers_per_device=2, timeout_s=120)
STEPS = 6
RESULT_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def pool():
    with JudgePool(CONFIG) as p:
        yield p


@pytest.fixture(scope="module")
def task() -> TaskSpec:
    return TaskSpec.parse(str(REFERENCE))


class CountingPool:
    """Wraps a pool: counts submissions; raises KeyboardInterrupt on submission number ``interrupt_at``."""

    def __init__(self, pool: Any, interrupt_at: int | None = None) -> None:
        self.pool, self.interrupt_at = pool, interrupt_at
        self.sources: list[str] = []

    @property
    def submits(self) -> int:
        return len(self.sources)

    def submit(self, task: TaskSpec, source: str, **kwargs: Any) -> concurrent.futures.Future:
        if self.interrupt_at is not None and len(self.sources) + 1 == self.interrupt_at:
            self.interrupt_at = None
            raise KeyboardInterrupt
        self.sources.append(source)
        return self.pool.submit(task, source, **kwargs)


@dataclass
class Run:
    search: Search
    result: Any
    pool: CountingPool
    events: list[dict] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def out(self) -> Path:
        return self.search.out


def run_search(task: TaskSpec, pool: Any, out: Path, steps: int, *, proposer: Any = None, parallel: int = 2,
               resume: bool = False, seed: int = 0, interrupt_at: int | None = None,
               listener: Any = None) -> Run:
    counting = CountingPool(pool, interrupt_at)
    stream = io.StringIO()
    sink = EventSink("test", [stream])
    events: list[dict] = []
    sink.listeners.append(events.append)
    if listener is not None:
        sink.listeners.append(listener)
    search = Search(task, proposer or BuiltinProposer(), counting, steps, out, sink, seed=seed, resume=resume,
                    parallel=parallel, devices=("cpu",))
    result = search.run()
    return Run(search, result, counting, events, stream.getvalue().splitlines())


def shape(tree: Tree) -> list[tuple]:
    """What must be the same between two runs of one seed (verdict details such as seconds, log tails and
    the environment vary)."""
    return [(n.id, n.parent, n.step, n.source, n.description, n.meta, n.status,
             (n.verdict or {}).get("verdict"), (n.verdict or {}).get("stage"), n.duplicate_of, n.children)
            for _, n in sorted(tree.nodes.items())]


def describe(tree: Tree) -> str:
    return "\n".join(f"  {n.id} <- {n.parent} {n.step} {n.status} {(n.verdict or {}).get('verdict')} "
                     f"dup={n.duplicate_of}: {n.description[-60:]}" for n in tree.candidates())


def assert_same_tree(actual: Tree, expected: Tree) -> None:
    assert shape(actual) == shape(expected), f"expected:\n{describe(expected)}\nactual:\n{describe(actual)}"


def saved_tree(out: Path) -> Tree:
    return Tree.from_dict(json.loads((out / TREE_FILE).read_text())["tree"])


@pytest.fixture(scope="module")
def main_run(pool, task, tmp_path_factory) -> Run:
    """One uninterrupted search: STEPS candidates, two in flight at a time (as the CLI runs on the CPU)."""
    return run_search(task, pool, tmp_path_factory.mktemp("main") / "out", STEPS)


# --------------------------------------------------------------------------------------------------------------
# one run: files, report, events


def test_run_writes_its_files(main_run):
    for name in (TREE_FILE, BEST_FILE, REPORT_FILE, SUMMARY_FILE):
        assert (main_run.out / name).is_file(), name
    assert not list(main_run.out.glob("*.tmp"))
    result = main_run.result
    assert result.steps == STEPS and not result.interrupted and result.stopped_reason == ""
    tree = result.tree
    assert len(tree.candidates()) == STEPS and tree.pending() == []
    assert all(n.status == JUDGED and n.verdict for n in tree.candidates())
    assert tree.nodes[ROOT].visits == STEPS
    assert main_run.pool.submits == STEPS - sum(n.duplicate_of is not None for n in tree.candidates())


def test_saved_tree_is_the_final_tree(main_run, task):
    data = json.loads((main_run.out / TREE_FILE).read_text())
    assert data["task"] == task.key()
    assert data["seed"] == 0 and data["proposer"] == "builtin"
    assert data["reference"] == f"{task.path}::Model"
    assert data["tree"] == main_run.result.tree.to_dict()
    assert Tree.from_dict(data["tree"]).to_dict() == data["tree"]


def test_report_counts_match_the_tree(main_run, task):
    report = json.loads((main_run.out / REPORT_FILE).read_text())
    tree = main_run.result.tree
    judged = tree.judged()
    valid = [n for n in judged if n.valid]
    assert report == main_run.result.report
    assert report["steps"] == len(judged) == STEPS
    assert report["steps_requested"] == STEPS
    assert report["valid"] == len(valid) and len(valid) >= 1
    assert report["valid_share"] == pytest.approx(len(valid) / len(judged))
    assert report["interrupted"] is False and report["stopped_reason"] == ""
    assert report["task_key"] == task.key() and report["class"] == "Model"
    assert report["proposer"] == "builtin" and report["seed"] == 0 and report["devices"] == ["cpu"]
    assert report["config"] == SearchConfig().to_dict()
    assert [c["node"] for c in report["candidates"]] == [n.id for n in judged]
    for c, n in zip(report["candidates"], judged):
        assert (c["parent"], c["step"], c["verdict"], c["stage"], c["duplicate_of"]) == \
            (n.parent, n.step, n.verdict["verdict"], n.verdict["stage"], n.duplicate_of)
        assert c["reward"] == pytest.approx(n.reward, abs=1e-4)
    best = tree.best()
    assert report["best"]["node"] == best.id
    assert report["best"]["timed"] is False and report["best"]["speedup_vs_eager"] is None
    assert report["best"]["file"] == str(main_run.out / BEST_FILE)
    assert report["best"]["checkpoint_compatible"] is True


def test_summary_lists_every_candidate(main_run):
    text = (main_run.out / SUMMARY_FILE).read_text()
    report = main_run.result.report
    assert text == summary_markdown(report)
    assert f"- steps: {STEPS} of {STEPS}\n" in text
    assert "- best: validated (interpreter), not timed" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| node")]
    assert [int(r.split("|")[1]) for r in rows] == [n.id for n in main_run.result.tree.judged()]


def test_best_py_is_the_best_node_and_is_valid(main_run, pool, task):
    best = main_run.result.tree.best()
    assert main_run.result.best is not None and main_run.result.best.id == best.id
    source = (main_run.out / BEST_FILE).read_text()
    assert source == best.source
    verdict = pool.submit(task, source).result(timeout=RESULT_TIMEOUT_S)
    assert verdict.ok, verdict.to_json()


def test_events_validate_and_are_in_order(main_run):
    events = main_run.events
    for e in events:
        validate(e)
    assert [parse_line(line) for line in main_run.lines] == events
    kinds = [e["event"] for e in events]
    assert kinds[0] == "job_started" and kinds[-1] == "job_finished"
    assert kinds.count("job_started") == 1 and kinds.count("job_finished") == 1
    assert "error" not in kinds
    started, finished = events[0], events[-1]
    assert started["steps"] == STEPS and started["resumed_steps"] == 0 and started["proposer"] == "builtin"
    assert started["devices"] == ["cpu"] and started["out"] == str(main_run.out)
    tree = main_run.result.tree
    judged = [e for e in events if e["event"] == "candidate_judged"]
    assert [e["step"] for e in judged] == list(range(1, STEPS + 1))
    assert all(e["steps"] == STEPS for e in judged)
    assert sorted(e["node"] for e in judged) == [n.id for n in tree.candidates()]
    for e in judged:
        node = tree.nodes[e["node"]]
        assert (e["parent"], e["kind"], e["verdict"], e["stage"], e["description"], e["duplicate"]) == \
            (node.parent, node.step, node.verdict["verdict"], node.verdict["stage"], node.description,
             node.duplicate_of is not None)
        assert e["reward"] == pytest.approx(node.reward)
        assert e["speedup_vs_eager"] is None         # the CPU does not time
    improved = [e for e in events if e["event"] == "best_improved"]
    assert improved and improved[-1]["node"] == tree.best().id and improved[0]["timed"] is False
    assert finished["steps"] == STEPS and finished["interrupted"] is False
    assert finished["valid"] == sum(n.valid for n in tree.candidates())
    assert finished["best_node"] == tree.best().id and finished["timed"] is False


def test_a_new_search_into_an_existing_out_needs_resume(main_run, task, pool):
    before = (main_run.out / TREE_FILE).read_text()
    with pytest.raises(SearchError, match="--resume"):
        Search(task, BuiltinProposer(), pool, STEPS, main_run.out, EventSink("x"))
    assert (main_run.out / TREE_FILE).read_text() == before


def test_steps_must_be_positive(task, pool, tmp_path):
    with pytest.raises(SearchError, match="steps"):
        Search(task, BuiltinProposer(), pool, 0, tmp_path / "out", EventSink("x"))


# --------------------------------------------------------------------------------------------------------------
# resume


@pytest.fixture(scope="module")
def serial_run(pool, task, tmp_path_factory) -> Run:
    """The uninterrupted reference run with one candidate in flight at a time."""
    return run_search(task, pool, tmp_path_factory.mktemp("serial") / "out", 5, parallel=1)


def test_resume_after_a_shorter_run_matches_an_uninterrupted_run(serial_run, pool, task, tmp_path):
    out = tmp_path / "out"
    first = run_search(task, pool, out, 2, parallel=1)
    assert first.result.steps == 2 and json.loads((out / REPORT_FILE).read_text())["steps"] == 2
    resumed = run_search(task, pool, out, 5, parallel=1, resume=True)
    assert resumed.events[0]["resumed_steps"] == 2
    assert resumed.pool.submits == 3                  # only the new candidates are judged
    assert_same_tree(resumed.result.tree, serial_run.result.tree)
    report = json.loads((out / REPORT_FILE).read_text())
    assert report["steps"] == 5 and report["steps_requested"] == 5


@pytest.fixture(scope="module")
def interrupted(pool, task, tmp_path_factory) -> Run:
    """The main run, interrupted (KeyboardInterrupt) as the third candidate goes to the judge."""
    return run_search(task, pool, tmp_path_factory.mktemp("interrupted") / "out", STEPS, interrupt_at=3)


def test_an_interrupted_run_saves_its_pending_candidates(interrupted):
    result = interrupted.result
    assert result.interrupted is True
    tree = saved_tree(interrupted.out)
    assert tree.to_dict() == result.tree.to_dict()
    assert [n.status for n in tree.candidates()] == [JUDGED, PENDING, PENDING]
    assert all(n.verdict is None for n in tree.pending())
    report = json.loads((interrupted.out / REPORT_FILE).read_text())
    assert report["interrupted"] is True and report["steps"] == 1 and report["steps_requested"] == STEPS
    assert "(interrupted)" in (interrupted.out / SUMMARY_FILE).read_text()
    assert interrupted.events[0]["event"] == "job_started"
    finished = interrupted.events[-1]
    assert finished["event"] == "job_finished" and finished["interrupted"] is True and finished["steps"] == 1
    assert (interrupted.out / BEST_FILE).read_text() == tree.nodes[1].source


def test_resume_judges_the_pending_candidates_and_reaches_the_uninterrupted_tree(interrupted, main_run, pool,
                                                                                   task, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(interrupted.out, out)         # the interrupted run's files stay as they were
    pending = [n.source for n in saved_tree(out).pending()]
    resumed = run_search(task, pool, out, STEPS, resume=True, seed=99)
    assert resumed.search.seed == 0                   # the saved seed, not the new argument
    assert resumed.events[0]["resumed_steps"] == 1
    assert resumed.pool.sources[:2] == pending        # the pending candidates first
    assert resumed.pool.submits == STEPS - 1          # nothing judged twice but the two pending ones
    assert not resumed.result.interrupted
    assert_same_tree(resumed.result.tree, main_run.result.tree)
    assert_same_tree(saved_tree(out), main_run.result.tree)
    report = json.loads((out / REPORT_FILE).read_text())
    assert report["interrupted"] is False and report["steps"] == STEPS and report["seed"] == 0


def test_resume_with_a_changed_reference_is_refused(pool, tmp_path):
    reference = tmp_path / "ref.py"
    shutil.copy(REFERENCE, reference)
    out = tmp_path / "out"
    run_search(TaskSpec.parse(str(reference)), pool, out, 1)
    saved = (out / TREE_FILE).read_text()
    reference.write_text(reference.read_text() + "\n# edited after the search\n")
    with pytest.raises(SearchError, match="differs"):
        Search(TaskSpec.parse(str(reference)), BuiltinProposer(), pool, 3, out, EventSink("x"), resume=True)
    assert (out / TREE_FILE).read_text() == saved


def test_resume_of_a_file_that_is_not_a_tree_is_refused(task, pool, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for text in ("not json", json.dumps({"task": task.key()}), json.dumps({"tree": {"nodes": []}})):
        (out / TREE_FILE).write_text(text)
        with pytest.raises(SearchError, match="cannot resume"):
            Search(task, BuiltinProposer(), pool, 3, out, EventSink("x"), resume=True)


# --------------------------------------------------------------------------------------------------------------
# proposer failures and duplicates


class FailingProposer:
    name = "failing"

    def __init__(self, message: str, succeed_first: Proposal | None = None) -> None:
        self.message, self.first, self.calls = message, succeed_first, 0

    def propose(self, request: ProposalRequest) -> Proposal:
        self.calls += 1
        if self.first is not None and self.calls == 1:
            return self.first
        raise ProposalError(self.message)


class SameSource:
    """Always the same candidate: the built-in proposer's default for the task."""

    name = "same"

    def __init__(self, proposal: Proposal) -> None:
        self.proposal = proposal
        self.seeds: list[int] = []

    def propose(self, request: ProposalRequest) -> Proposal:
        self.seeds.append(request.seed)
        return Proposal(self.proposal.source, "always the same", dict(self.proposal.meta))


@pytest.fixture(scope="module")
def default_proposal(task) -> Proposal:
    return BuiltinProposer().propose(ProposalRequest(task=task))


def test_a_proposer_failing_at_once_is_a_search_error(task, pool, tmp_path):
    proposer = FailingProposer("unsupported: nothing to fuse (conv2d)")
    counting = CountingPool(pool)
    events: list[dict] = []
    sink = EventSink("x")
    sink.listeners.append(events.append)
    with pytest.raises(SearchError, match=r"unsupported: nothing to fuse \(conv2d\)"):
        Search(task, proposer, counting, 4, tmp_path / "out", sink).run()
    assert proposer.calls == 1 and counting.submits == 0
    assert not (tmp_path / "out" / TREE_FILE).exists()
    assert events and events[0]["event"] == "job_started"
    assert not [e for e in events if e["event"] == "candidate_judged"]


def test_repeated_proposer_failures_stop_the_search(task, pool, tmp_path, default_proposal):
    proposer = FailingProposer("the model is tired", succeed_first=default_proposal)
    run = run_search(task, pool, tmp_path / "out", 10, proposer=proposer)
    assert run.result.steps == 1 and not run.result.interrupted
    assert proposer.calls == 1 + PROPOSAL_FAILURES_ALLOWED
    assert "the model is tired" in run.result.stopped_reason
    errors = [e for e in run.events if e["event"] == "error"]
    assert len(errors) == PROPOSAL_FAILURES_ALLOWED
    assert all(e["fatal"] is False and "the model is tired" in e["message"] for e in errors)
    report = json.loads((run.out / REPORT_FILE).read_text())
    assert report["stopped_reason"] == run.result.stopped_reason and report["steps"] == 1
    assert run.events[-1]["event"] == "job_finished"


@pytest.fixture(scope="module")
def same_source_run(pool, task, tmp_path_factory, default_proposal) -> tuple[Run, SameSource]:
    proposer = SameSource(default_proposal)
    run = run_search(task, pool, tmp_path_factory.mktemp("same") / "out", 4, proposer=proposer)
    return run, proposer


def test_duplicates_reuse_the_first_verdict_and_are_not_judged_again(same_source_run, default_proposal):
    run, proposer = same_source_run
    tree = run.result.tree
    assert run.pool.submits == 1 and run.pool.sources == [default_proposal.source]
    nodes = tree.candidates()
    assert len(nodes) == 4 and all(n.source == default_proposal.source for n in nodes)
    assert nodes[0].duplicate_of is None and nodes[0].valid
    for n in nodes[1:]:
        assert n.duplicate_of == nodes[0].id, describe(tree)
        assert n.verdict == nodes[0].verdict and n.reward == nodes[0].reward
    assert tree.find_source(default_proposal.source) is nodes[0]
    judged = [e for e in run.events if e["event"] == "candidate_judged"]
    assert [e["duplicate"] for e in judged] == [False, True, True, True]
    report = json.loads((run.out / REPORT_FILE).read_text())
    assert [c["duplicate_of"] for c in report["candidates"]] == [None, 1, 1, 1]
    assert report["best"]["node"] == nodes[0].id
    # each repeat was retried with new seeds before it was accepted as a duplicate
    assert len(proposer.seeds) == 1 + 3 * (DUPLICATE_RETRIES + 1)
    assert len(set(proposer.seeds[1:1 + DUPLICATE_RETRIES + 1])) == DUPLICATE_RETRIES + 1


def test_resume_does_not_judge_a_pending_duplicate_again(same_source_run, pool, task, tmp_path, default_proposal):
    fired: list[bool] = []

    def interrupt_after_first_verdict(event: dict) -> None:
        if event["event"] == "candidate_judged" and not fired:
            fired.append(True)
            raise KeyboardInterrupt

    out = tmp_path / "out"
    stopped = run_search(task, pool, out, 4, proposer=SameSource(default_proposal),
                         listener=interrupt_after_first_verdict)
    assert stopped.result.interrupted and stopped.pool.submits == 1
    assert [n.status for n in saved_tree(out).candidates()] == [JUDGED, PENDING]
    resumed = run_search(task, pool, out, 4, proposer=SameSource(default_proposal), resume=True)
    assert_same_tree(resumed.result.tree, same_source_run[0].result.tree)
    assert resumed.pool.submits == 0


# --------------------------------------------------------------------------------------------------------------
# the headline


def test_headline():
    assert headline(None) == "no valid candidate"
    assert headline({"timed": False, "speedup_vs_eager": None}) == "validated (interpreter), not timed"
    timed = {"timed": True, "speedup_vs_eager": 2.414, "speedup_vs_compile": 1.3, "env": {"gpu": "NVIDIA H200"}}
    assert headline(timed) == "2.41x vs eager, 1.30x vs torch.compile, validated on NVIDIA H200"
    assert headline({**timed, "speedup_vs_compile": None, "env": {}}) == "2.41x vs eager, validated"


class TimedPool:
    """A pool of made-up timed verdicts: the n-th candidate's first judging gives ``first[n]``; judging again
    with more rounds (the winner's re-timing) gives ``again[source]`` (a speedup, or None for invalid)."""

    def __init__(self, first: list[float], again: dict[int, float | None]) -> None:
        self.first, self.again = first, again
        self.order: dict[str, int] = {}
        self.rounds: list[int | None] = []

    def submit(self, task: TaskSpec, source: str, rounds: int | None = None, **_: Any) -> concurrent.futures.Future:
        from adaexplore_core.judge.verdict import Timing, Verdict
        n = self.order.setdefault(source, len(self.order))
        self.rounds.append(rounds)
        speedup = self.first[n % len(self.first)] if rounds is None else self.again.get(n)
        future: concurrent.futures.Future = concurrent.futures.Future()
        if speedup is None:
            future.set_result(Verdict(verdict="invalid", reason="Output differs", stage="correctness"))
            return future
        width = 0.03 if rounds is None else 0.08
        timing = Timing(candidate_ms=1.0 / speedup, candidate_iqr_ms=0.01, eager_ms=1.0, eager_iqr_ms=0.01,
                        compile_ms=None, compile_iqr_ms=None, speedup_vs_eager=speedup, speedup_vs_compile=None,
                        iterations=100, input_sets=0, speedup_vs_eager_low=speedup - width,
                        speedup_vs_eager_high=speedup + width, rounds=rounds or 4)
        future.set_result(Verdict(verdict="valid", reason="Validated", stage="ok", timing=timing,
                                  env={"gpu": "Test GPU"}))
        return future


def test_the_winner_is_timed_again_and_that_timing_is_the_one_reported(task, tmp_path):
    # Candidate 1 looked 1.4x faster (a lucky draw); judged again it is 0.97x. Candidate 2 (1.1x) is then the
    # best, and judged again it is 1.02x (0.94-1.10): not faster than eager, and said so.
    pool = TimedPool(first=[1.0, 1.4, 1.1], again={1: 0.97, 2: 1.02})
    run = run_search(task, pool, tmp_path / "out", 3, parallel=1)
    report = json.loads((run.out / REPORT_FILE).read_text())
    assert pool.rounds.count(None) == 3 and len(pool.rounds) == 5           # two re-timings, with more rounds
    best = report["best"]
    assert best["node"] == run.search.tree.candidates()[2].id
    assert best["retimed"] is True and best["first_timing"]["speedup_vs_eager"] == pytest.approx(1.1)
    assert best["speedup_vs_eager"] == pytest.approx(1.02)
    assert headline(best).startswith("no faster than eager (0.94-1.10x)")
    retimed = [e for e in run.events if e["event"] == "best_retimed"]
    assert [e["first_speedup_vs_eager"] for e in retimed] == pytest.approx([1.4, 1.1])


def test_a_winner_that_fails_its_second_judging_loses_its_place(task, tmp_path):
    pool = TimedPool(first=[1.0, 1.4, 1.2], again={1: None, 2: 1.15})
    run = run_search(task, pool, tmp_path / "out", 3, parallel=1)
    report = json.loads((run.out / REPORT_FILE).read_text())
    assert report["best"]["node"] == run.search.tree.candidates()[2].id
    assert run.search.tree.candidates()[1].verdict["verdict"] == "invalid"        # the lucky one failed again
    assert report["best"]["retimed"] is True and report["best"]["speedup_vs_eager"] == pytest.approx(1.15)
    assert headline(report["best"]).startswith("1.15x (1.07-1.23) vs eager")
    assert (run.out / BEST_FILE).read_text() == run.search.tree.nodes[report["best"]["node"]].source


def _rejected(node_id: int, stage: str, check: str, reason: str, duplicate_of: int | None = None) -> Node:
    checks = [{"name": "guard", "passed": True, "detail": ""}] + \
        ([{"name": check, "passed": False, "detail": reason}] if check else [])
    return Node(id=node_id, parent=ROOT, step="large", verdict={"verdict": "invalid", "stage": stage,
                                                               "reason": reason, "checks": checks},
                duplicate_of=duplicate_of)


def test_rejections_group_by_stage_and_check_most_common_first():
    nodes = [_rejected(1, "correctness", "values", "Output differs in trial 1 (max abs error 0.5)"),
             _rejected(2, "compile", "", "SyntaxError at line 3"),
             _rejected(3, "correctness", "values", "Output differs in trial 2 (max abs error 0.1)"),
             _rejected(4, "correctness", "values", "a duplicate", duplicate_of=1),
             _rejected(5, "correctness", "modes", "eval mode differs"),
             _rejected(6, "guard", "guard", "import of 'os'"),
             Node(id=7, parent=ROOT, step="large", verdict={"verdict": "valid", "stage": "ok", "reason": "ok",
                                                            "checks": []})]
    found = rejections(nodes)
    assert found[0] == {"reason": "Output differs in trial 1 (max abs error 0.5)", "stage": "correctness",
                        "check": "values", "count": 2}          # duplicates and valid candidates not counted
    assert [(r["stage"], r["count"]) for r in found[1:]] == [("compile", 1), ("correctness", 1)]   # ties: first seen
    assert len(found) == 3
    assert rejections([]) == []


def test_summary_names_the_most_common_rejection(main_run):
    report = dict(main_run.result.report, rejections=[{"reason": "SyntaxError at line 3", "stage": "compile",
                                                       "check": "", "count": 4}])
    assert "- rejected 4x at compile: SyntaxError at line 3\n" in summary_markdown(report)
