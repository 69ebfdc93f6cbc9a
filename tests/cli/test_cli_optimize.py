"""`python -m adaexplore_core.cli optimize` as users run it: the files and events a search writes, events on
stdout, clear exit statuses for bad input, --resume, and Ctrl-C (exit 130 with the tree saved).

Runs on the CPU (Triton interpreter). The independent runs start together up front; each test waits for
its own.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adaexplore_core.schema.events import parse_line
from adaexplore_core.search.tree import Tree

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "proposers"
REFERENCE = DATA / "linear_epilogue.py"
UNSUPPORTED = DATA / "unsupported"
RUN_TIMEOUT_S = 300
FILES = ("tree.json", "best.py", "report.json", "summary.md")


def cli_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "adaexplore_core.cli", "optimize", *args]


def run_cli(*args: str, timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env=cli_env())


def read_events(path: Path) -> list[dict]:
    return [parse_line(line) for line in path.read_text(encoding="utf-8").splitlines()]


def report_of(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("optimize")


def _search_then_resume(work: Path) -> dict:
    """A 4-step search; the same command again (refused: needs --resume); then --resume with 6 steps."""
    out, events = work / "run", work / "events" / "run.jsonl"
    common = (str(REFERENCE), "--out", str(out), "--device", "cpu", "--events", str(events))
    first = run_cli(*common, "--steps", "4")
    snapshot = {name: (out / name).read_text() for name in FILES if (out / name).exists()}
    event_lines = events.read_text().splitlines() if events.exists() else []
    again = run_cli(*common, "--steps", "4")
    unchanged = all((out / name).read_text() == text for name, text in snapshot.items())
    resumed = run_cli(*common, "--steps", "6", "--resume")
    return {"first": first, "files": snapshot, "event_lines": event_lines, "again": again,
            "unchanged": unchanged, "resumed": resumed, "out": out, "events": events}


@pytest.fixture(scope="module")
def runs(work):
    """Every run that finishes on its own, started together; each test waits for its own."""
    jobs = {
        "stdout": lambda: run_cli(str(REFERENCE), "--steps", "2", "--out", str(work / "stdout"), "--device", "cpu",
                                  "--events", "-"),
        "conv_only": lambda: run_cli(str(UNSUPPORTED / "conv_only.py"), "--steps", "4", "--out",
                                     str(work / "conv"), "--device", "cpu", "--events", str(work / "conv.jsonl")),
        "missing": lambda: run_cli(str(work / "nowhere.py"), "--steps", "4", "--out", str(work / "missing"),
                                   "--device", "cpu"),
        "zero_steps": lambda: run_cli(str(REFERENCE), "--steps", "0", "--out", str(work / "zero"), "--device",
                                      "cpu"),
    }
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as executor:
        futures = {"search": executor.submit(_search_then_resume, work)}
        futures.update({name: executor.submit(job) for name, job in jobs.items()})
        yield futures


def result(runs, name: str):
    return runs[name].result(timeout=RUN_TIMEOUT_S * 3)


def shown(out: subprocess.CompletedProcess) -> str:
    return f"exit {out.returncode}\n--- stdout\n{out.stdout}\n--- stderr\n{out.stderr}"


def test_optimize_writes_results_and_events(runs):
    search = result(runs, "search")
    first = search["first"]
    assert first.returncode == 0, shown(first)
    assert set(search["files"]) == set(FILES), shown(first)
    report = json.loads(search["files"]["report.json"])
    assert report["steps"] == 4 and report["steps_requested"] == 4 and report["valid"] >= 1
    assert report["interrupted"] is False and report["devices"] == ["cpu"]
    tree = Tree.from_dict(json.loads(search["files"]["tree.json"])["tree"])
    assert len(tree.judged()) == 4 and not tree.pending()
    assert search["files"]["best.py"] == tree.best().source
    assert "4 candidate(s)" in first.stdout and f"results in {search['out']}" in first.stdout, shown(first)
    assert "Traceback" not in first.stderr, shown(first)
    events = [parse_line(line) for line in search["event_lines"]]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "job_started" and kinds[-1] == "job_finished", kinds
    assert kinds.count("candidate_judged") == 4
    assert events[-1]["steps"] == 4 and events[-1]["interrupted"] is False


def test_rerun_without_resume_exits_2_and_keeps_the_results(runs):
    search = result(runs, "search")
    again = search["again"]
    assert again.returncode == 2, shown(again)
    assert "adaexplore optimize: " in again.stderr and "--resume" in again.stderr, shown(again)
    assert "tree.json exists" in again.stderr, shown(again)
    assert "Traceback" not in again.stderr, shown(again)
    assert search["unchanged"], "a refused run must not touch the earlier results"


def test_resume_with_more_steps_continues(runs):
    search = result(runs, "search")
    resumed = search["resumed"]
    assert resumed.returncode == 0, shown(resumed)
    before = json.loads(search["files"]["report.json"])
    after = report_of(search["out"])
    assert (before["steps"], after["steps"]) == (4, 6)
    assert after["steps_requested"] == 6 and after["interrupted"] is False
    assert [c["node"] for c in after["candidates"]][:4] == [c["node"] for c in before["candidates"]]
    old = Tree.from_dict(json.loads(search["files"]["tree.json"])["tree"])
    new = Tree.from_dict(json.loads((search["out"] / "tree.json").read_text())["tree"])
    for node in old.candidates():                     # the first four candidates are kept as they were
        kept = new.nodes[node.id]
        assert (kept.parent, kept.source, kept.verdict) == (node.parent, node.source, node.verdict)
    events = read_events(search["events"])            # the events file is appended to
    started = [e for e in events if e["event"] == "job_started"]
    assert [e["resumed_steps"] for e in started] == [0, 4], started
    assert [e["steps"] for e in events if e["event"] == "job_finished"] == [4, 6]
    assert events[-1]["event"] == "job_finished"


def test_events_on_stdout_are_only_json_lines(runs, work):
    out = result(runs, "stdout")
    assert out.returncode == 0, shown(out)
    lines = out.stdout.splitlines()
    assert lines, shown(out)
    events = [parse_line(line) for line in lines]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "job_started" and kinds[-1] == "job_finished", kinds
    assert kinds.count("candidate_judged") == 2
    assert "step 1/2" not in out.stderr, "no progress line when events go to stdout"
    assert all((work / "stdout" / name).is_file() for name in FILES)


def test_unsupported_module_exits_2_with_the_reason(runs, work):
    out = result(runs, "conv_only")
    assert out.returncode == 2, shown(out)
    assert "unsupported" in out.stderr and "adaexplore optimize: unsupported" in out.stderr, shown(out)
    assert "Traceback" not in out.stderr, shown(out)
    events = read_events(work / "conv.jsonl")
    assert events[-1]["event"] == "error" and events[-1]["fatal"] is True
    assert "unsupported" in events[-1]["message"]
    assert not [e for e in events if e["event"] == "candidate_judged"]
    assert not (work / "conv").exists()            # no empty results folder left behind
    assert out.stderr.count("unsupported: nothing to fuse") == 1, shown(out)   # said once, not twice


def test_missing_reference_exits_2(runs, work):
    out = result(runs, "missing")
    assert out.returncode == 2, shown(out)
    assert "adaexplore optimize: reference file not found:" in out.stderr and "nowhere.py" in out.stderr
    assert "Traceback" not in out.stderr
    assert not (work / "missing").exists()


def test_zero_steps_is_rejected(runs, work):
    out = result(runs, "zero_steps")
    assert out.returncode == 2, shown(out)
    assert out.stdout == ""
    assert "--steps" in out.stderr and "must be a positive whole number" in out.stderr, shown(out)
    assert not (work / "zero").exists()


def test_ctrl_c_saves_the_tree_and_exits_130(tmp_path):
    out, events = tmp_path / "out", tmp_path / "events.jsonl"
    proc = subprocess.Popen(command(str(REFERENCE), "--steps", "500", "--out", str(out), "--device", "cpu",
                                    "--events", str(events)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=cli_env())
    try:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while time.monotonic() < deadline and proc.poll() is None:
            if events.exists() and '"candidate_judged"' in events.read_text(encoding="utf-8"):
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the search ended before it could be interrupted:\n" + proc.communicate()[1]
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, f"exit {proc.returncode}\n{stdout}\n{stderr}"
    assert "Traceback" not in stderr, stderr
    assert "--resume" in stdout, stdout
    saved = json.loads((out / "tree.json").read_text())
    tree = Tree.from_dict(saved["tree"])
    report = report_of(out)
    assert report["interrupted"] is True
    assert 1 <= report["steps"] == len(tree.judged()) < 500
    assert report["steps_requested"] == 500
    finished = read_events(events)[-1]
    assert finished["event"] == "job_finished" and finished["interrupted"] is True
