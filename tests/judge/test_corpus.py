"""The judge's adversarial corpus.

Every file ``tests/data/judge/candidates/<ref>/<case>.py`` is a candidate for the reference
``tests/data/judge/refs/<ref>.py`` and declares, on its first line, the verdict the judge must give it::

    # expect: verdict=invalid stage=guard check=guard reason~"import of 'os'"

``check`` names the first failing check (omitted for valid candidates; ``check=modes|weights`` where either of
two checks aimed at the same defect may catch it first, depending on the random inputs); ``reason~`` is a
case-insensitive substring of the verdict's reason or of that check's detail (alternatives separated by
`` | ``, for the same cause). Optional header lines may follow:

    # xfail: judge bug: ...   the judge gets this case wrong today (a strict xfail: fixing the bug fails the
                              test until the marker is removed)
    # isolate: ...            judge it in a private one-worker pool, because it may damage the worker it runs
                              in (the bug cases that patch torch or forge verdicts)

Everything else goes through one shared pool, submitted up front; each test then checks one verdict.
Workers run Triton in the interpreter on the CPU, so no timing is measured.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.judge.verdict import STAGES, VALID, Verdict
from adaexplore_core.task import TaskSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"
REFS = DATA / "refs"
CANDIDATES = DATA / "candidates"
CONFIG = JudgeConfig(devices=("cpu",), workers_per_device=2, timeout_s=60, memory_limit_mb=2048, trials=5)
RESULT_TIMEOUT_S = 240
KILLING_STAGES = ("timeout", "crash", "memory")   # the pool must kill (or lose) the worker and start another

EXPECT = re.compile(r'# expect: verdict=(?P<verdict>valid|invalid|error) stage=(?P<stage>\w+)'
                    r'(?: check=(?P<check>\w+(?:\|\w+)*))? reason~"(?P<reason>[^"]+)"\s*$')
OPTION = re.compile(r"# (?P<key>xfail|isolate): (?P<value>.+)$")


@dataclass(frozen=True)
class Case:
    path: Path
    reference: Path
    verdict: str
    stage: str
    check: str | None
    reason: str
    xfail: str | None = None
    isolate: str | None = None

    @property
    def id(self) -> str:
        return f"{self.path.parent.name}/{self.path.stem}"


def parse_case(path: Path) -> Case:
    """Read a candidate's header; raise ValueError (a collection error) when it is malformed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    match = EXPECT.match(lines[0]) if lines else None
    if match is None:
        raise ValueError(f"{path}: the first line must be  # expect: verdict=... stage=... [check=...] reason~\"...\"")
    options: dict[str, str] = {}
    for line in lines[1:]:
        option = OPTION.match(line)
        if option is None:
            break
        options[option["key"]] = option["value"]
    case = Case(path=path, reference=REFS / f"{path.parent.name}.py", verdict=match["verdict"],
                stage=match["stage"], check=match["check"], reason=match["reason"], **options)
    if case.stage not in STAGES:
        raise ValueError(f"{path}: unknown stage {case.stage!r}")
    if (case.verdict == VALID) != (case.stage == "ok") or (case.verdict == VALID) == (case.check is not None):
        raise ValueError(f"{path}: a valid case has stage=ok and no check; any other case names its check")
    if not case.reference.is_file():
        raise ValueError(f"{path}: no reference {case.reference}")
    return case


CASES = [parse_case(p) for p in sorted(CANDIDATES.glob("*/*.py"))]
BY_ID = {c.id: c for c in CASES}
PARAMS = [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else [])
          for c in CASES]


def task_for(case: Case) -> TaskSpec:
    return TaskSpec.parse(str(case.reference))


@dataclass
class Judged:
    pool: JudgePool
    futures: dict


@pytest.fixture(scope="module")
def judged():
    """Submit the whole corpus at once; the hang goes first so that it overlaps everything else."""
    pool = JudgePool(CONFIG)
    private: list[JudgePool] = []
    futures = {}
    try:
        for case in sorted(CASES, key=lambda c: c.stage not in KILLING_STAGES):
            target = pool
            if case.isolate:
                target = JudgePool(dataclasses.replace(CONFIG, workers_per_device=1))
                private.append(target)
            futures[case.id] = target.submit(task_for(case), case.path.read_text(encoding="utf-8"),
                                             name=case.path.name)
        yield Judged(pool, futures)
    finally:
        for p in private:
            p.close()
        pool.close()


def describe(verdict: Verdict) -> str:
    return json.dumps(verdict.to_dict(), indent=2, sort_keys=True)


def test_corpus_layout():
    """Every reference has candidates, including a legit one the judge must accept."""
    refs = sorted(p.stem for p in REFS.glob("*.py"))
    assert refs, f"no references in {REFS}"
    for ref in refs:
        legit = [c for c in CASES if c.reference.stem == ref and c.verdict == VALID and not c.xfail]
        assert legit, f"reference {ref} has no legit candidate in {CANDIDATES / ref}"


@pytest.mark.parametrize("case", PARAMS)
def test_corpus_case(case: Case, judged: Judged):
    verdict: Verdict = judged.futures[case.id].result(timeout=RESULT_TIMEOUT_S)
    shown = f"{case.id}: expected {case.verdict}/{case.stage}/{case.check}/~{case.reason!r}, got\n{describe(verdict)}"
    failed = verdict.failed_check()
    assert verdict.verdict == case.verdict, shown
    assert verdict.stage == case.stage, shown
    if case.check is None:
        assert failed is None, shown
    else:
        assert failed is not None and failed.name in case.check.split("|"), shown
    texts = [verdict.reason] + ([failed.detail] if failed else [])
    assert any(alt.lower() in t.lower() for alt in case.reason.split(" | ") for t in texts), shown


def verdict_of(judged: Judged, case_id: str) -> Verdict:
    return judged.futures[case_id].result(timeout=RESULT_TIMEOUT_S)


def test_verdicts_record_the_envelope(judged: Judged):
    """A valid verdict says what the candidate was validated for besides get_inputs: its declared ENVELOPE,
    the sizes tried (and whether Triton ran there), gradients, dtypes, modes and devices."""
    verdict = verdict_of(judged, "pointwise/valid_envelope")
    env = verdict.envelope
    assert env["declared"]["inputs"] == [{"dtype": "torch.float32", "sizes": ["B", 128]}], describe(verdict)
    assert env["shapes_timed"] == [[64, 128]]
    assert env["shapes_validated"] == [{"label": f"shape trial (B: 64 -> {n})", "shapes": [[n, 128]],
                                        "triton": n > 1} for n in (32, 128, 7, 1, 1029, 259)]   # at 1 it may fall back
    assert env["shapes_skipped"] == []
    assert (env["gradients"], env["dtypes"], env["modes"], env["devices"], env["layouts"]) == (
        "matched", ["torch.float32", "torch.bfloat16", "torch.float16", "torch.float64"], ["train", "eval"],
        ["cpu"], ["contiguous", "transposed", "sliced"])
    checks = {c.name: c for c in verdict.checks}
    assert all(checks[name].passed for name in ("shapes", "fixed_sizes", "layouts", "settings", "gradients",
                                                "dtypes", "modes", "weights", "program")), describe(verdict)
    assert "a fallback without Triton" in checks["dtypes"].detail       # bfloat16 is outside its ENVELOPE
    assert verdict_of(judged, "pointwise/valid").envelope["declared"] is None


def test_sizes_the_reference_rejects_are_skipped(judged: Judged):
    env = verdict_of(judged, "positional_add/valid").envelope
    assert [s["label"] for s in env["shapes_skipped"]] == [f"shape trial (S: 16 -> {n})"
                                                          for n in (8, 32, 7, 261, 67)]
    assert {s["why"] for s in env["shapes_skipped"]} == {"not accepted by the reference"}
    assert [v["shapes"] for v in env["shapes_validated"]] == [[[n, 16, 32]] for n in (2, 8, 7, 1, 69, 19)] + [
        [[4, 1, 32]]]                                     # a sequence of 1 broadcasts over the table


def test_a_reference_that_updates_its_input_in_place_is_not_differentiable(judged: Judged):
    verdict = verdict_of(judged, "inplace_add/valid_same_mutation")
    assert verdict.ok and verdict.envelope["gradients"] == "not differentiable", describe(verdict)


def test_a_failed_verdict_records_what_passed_before(judged: Judged):
    env = verdict_of(judged, "pointwise/no_autograd").envelope
    assert len(env["shapes_validated"]) == 6 and all(v["triton"] for v in env["shapes_validated"])
    assert "gradients" not in env and "dtypes" not in env


def test_pool_recovers_after_killed_workers(judged: Judged):
    """After the hang, crash and memory-hog cases, the shared pool still judges legit candidates correctly."""
    killers = [c for c in CASES if c.stage in KILLING_STAGES and not c.isolate]
    assert {c.stage for c in killers} == set(KILLING_STAGES)
    for case in killers:
        verdict = judged.futures[case.id].result(timeout=RESULT_TIMEOUT_S)
        assert not verdict.ok, describe(verdict)
    legit = BY_ID["pointwise/valid"]
    source = legit.path.read_text(encoding="utf-8")
    # One per worker slot: each slot may have lost its worker and must start a new one.
    futures = [judged.pool.submit(task_for(legit), source, name=legit.path.name)
               for _ in range(CONFIG.workers_per_device)]
    for future in futures:
        verdict = future.result(timeout=RESULT_TIMEOUT_S)
        assert verdict.ok and verdict.trials >= CONFIG.trials, describe(verdict)
