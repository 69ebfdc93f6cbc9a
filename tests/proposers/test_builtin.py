"""The built-in proposer against the judge: every candidate it writes for the references in
tests/data/proposers (and for KernelBench level 2, shrunk) must be VALID, keep the reference's constructor
and state_dict, be readable, and follow the search contract (small steps change one knob, deterministically
per seed; large steps avoid plans the pool already has). Unsupported modules get clear ProposalErrors.

Candidates are judged on the CPU (Triton interpreter) in one shared pool, all submitted up front; each test
then waits for its own verdicts.
"""
from __future__ import annotations

import ast
import concurrent.futures
import inspect
import json
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import torch

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.judge.verdict import Verdict
from adaexplore_core.proposers.base import LARGE, SMALL, Candidate, Proposal, ProposalError, ProposalRequest
from adaexplore_core.proposers.builtin.proposer import KNOB_CHOICES, PLAN_VARIANTS, BuiltinProposer
from adaexplore_core.task import TaskSpec, import_file, load_task

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:           # tests/ is not a package; its helpers import as `support`
    sys.path.insert(0, str(TESTS))
from support.kernelbench import kernelbench_dir, shrunk_source  # noqa: E402

DATA = TESTS / "data" / "proposers"
UNSUPPORTED = DATA / "unsupported"
REFERENCES = sorted(DATA.glob("*.py"))
COUNT = 4                                 # candidates per reference from initial()
# the largest shrunk level-2 problems (ConvTranspose3d) take ~250 s of interpreter trials alone on 2 cores and
# up to ~400 s with the other worker busy (2026-12-03)
CONFIG = JudgeConfig(devices=("cpu",), workers_per_device=2, timeout_s=600)
RESULT_TIMEOUT_S = 600
SEEDS = range(10)

def ref_params() -> list:
    return [pytest.param(p, id=p.stem) for p in REFERENCES]


def describe(verdict: Verdict) -> str:
    return json.dumps(verdict.to_dict(), indent=2, sort_keys=True)


def shown(proposal: Proposal, verdict: Verdict | None = None) -> str:
    """What a failure prints: the description, the candidate source and the verdict."""
    text = f"--- {proposal.description}\n{proposal.source}"
    return text + (f"\n--- verdict\n{describe(verdict)}" if verdict is not None else "")


def task_of(path: Path) -> TaskSpec:
    return TaskSpec.parse(str(path))


@dataclass
class Proposed:
    """initial() for one reference: the proposer (its capture cached), the proposals or the error."""

    task: TaskSpec
    proposer: BuiltinProposer
    proposals: list[Proposal] = field(default_factory=list)
    error: BaseException | None = None
    futures: list[concurrent.futures.Future] = field(default_factory=list)

    def require(self) -> list[Proposal]:
        if self.error is not None:
            raise AssertionError("initial() raised:\n" + "".join(traceback.format_exception(self.error)))
        return self.proposals


@pytest.fixture(scope="module")
def pool():
    with JudgePool(CONFIG) as p:
        yield p


@pytest.fixture(scope="module")
def proposed(pool) -> dict[str, Proposed]:
    """initial(COUNT) for every reference, all candidates submitted to the pool at once."""
    result: dict[str, Proposed] = {}
    for path in REFERENCES:
        item = Proposed(task=task_of(path), proposer=BuiltinProposer())
        try:
            item.proposals = item.proposer.initial(ProposalRequest(task=item.task), COUNT)
        except Exception as e:  # noqa: BLE001 - reported by the tests that need the proposals
            item.error = e
        item.futures = [pool.submit(item.task, p.source, name=f"{path.stem}_{i}.py")
                        for i, p in enumerate(item.proposals)]
        result[path.stem] = item
    return result


# --------------------------------------------------------------------------------------------------------------
# every reference: distinct, VALID candidates that keep the constructor and state_dict


@pytest.mark.parametrize("path", ref_params())
def test_initial_candidates_are_distinct_and_valid(path: Path, proposed):
    item = proposed[path.stem]
    proposals = item.require()
    assert len(proposals) == COUNT, [p.description for p in proposals]
    assert len({p.source for p in proposals}) == COUNT, "initial() returned the same source twice"
    failures = []
    for proposal, future in zip(proposals, item.futures):
        verdict = future.result(timeout=RESULT_TIMEOUT_S)
        if not verdict.ok:
            failures.append(shown(proposal, verdict))
    assert not failures, f"{len(failures)} of {COUNT} candidates rejected:\n" + "\n\n".join(failures)


def _has_state(path: Path) -> bool:
    task = load_task(task_of(path))
    with torch.device("meta"):
        return bool(task.model_class(*task.init_args()).state_dict())


STATEFUL = [p for p in REFERENCES if _has_state(p)]


def test_data_set_covers_stateful_and_stateless_modules():
    assert len(STATEFUL) >= 8 and len(REFERENCES) - len(STATEFUL) >= 5


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in STATEFUL])
def test_candidates_keep_constructor_and_state_dict(path: Path, proposed, tmp_path):
    """The judge says checkpoint-compatible; ModelNew also takes Model's constructor arguments by name and
    has the same state_dict keys and shapes."""
    item = proposed[path.stem]
    task = load_task(item.task)
    with torch.device("meta"):
        reference = task.model_class(*task.init_args())
    expected = {k: tuple(v.shape) for k, v in reference.state_dict().items()}
    for i, proposal in enumerate(item.require()):
        file = tmp_path / f"candidate_{i}.py"
        file.write_text(proposal.source, encoding="utf-8")
        model_new = import_file(str(file), prefix="adaexplore_test_candidate").ModelNew
        assert inspect.signature(model_new.__init__) == inspect.signature(task.model_class.__init__), \
            shown(proposal)
        with torch.device("meta"):
            candidate = model_new(*task.init_args())
        assert {k: tuple(v.shape) for k, v in candidate.state_dict().items()} == expected, shown(proposal)
    for proposal, future in zip(item.proposals, item.futures):
        verdict = future.result(timeout=RESULT_TIMEOUT_S)
        assert verdict.checkpoint_compatible is True, shown(proposal, verdict)


# --------------------------------------------------------------------------------------------------------------
# readability: one launcher per plan kernel, named after its ops, commented, no sizes baked in


def _functions(source: str) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}


def _is_jit(fn: ast.FunctionDef) -> bool:
    return any(ast.unparse(d) == "triton.jit" for d in fn.decorator_list)


def _launched(fn: ast.FunctionDef) -> set[str]:
    """Names of the kernels ``fn`` launches (``name[grid](...)``)."""
    return {n.func.value.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)
            and isinstance(n.func.value, ast.Name)}


def _constants(fn: ast.FunctionDef, kind: type) -> set:
    return {n.value for n in ast.walk(fn) if isinstance(n, ast.Constant) and type(n.value) is kind}


def _reference_sizes(task: TaskSpec) -> set[int]:
    inputs = load_task(task).make_inputs(0, "meta")
    return {int(d) for x in inputs if isinstance(x, torch.Tensor) for d in x.shape if d >= 5}


def _kernel_count(description: str) -> int:
    match = re.match(r"(\d+) Triton kernel\(s\)", description)
    assert match, description
    return int(match.group(1))


KNOB_VALUES = {v for kinds in KNOB_CHOICES.values() for values in kinds.values() for v in values} | {64, 1024}
COMMENT = re.compile(r"^\s*# (\w+) = (\w+)\(")     # "# mul = mul(linear, 0.75)": value = op(operands)


@pytest.mark.parametrize("path", ref_params())
def test_generated_source_is_readable(path: Path, proposed):
    """One launcher per kernel of the plan (as many as the description counts), each launching its own
    @triton.jit kernel(s) named after it; every kernel opens with comments saying what it computes, is named
    after one of those ops, and holds no size of the reference."""
    item = proposed[path.stem]
    sizes = _reference_sizes(item.task)
    for proposal in item.require():
        functions = _functions(proposal.source)
        lines = proposal.source.splitlines()
        helpers = {name for name, fn in functions.items()
                   if _is_jit(fn) and name.endswith(("_prologue", "_epilogue"))}
        jit = {name for name, fn in functions.items() if _is_jit(fn)} - helpers   # device functions: no launcher
        for helper in helpers:        # a fused prologue/epilogue is called by its own launcher's kernels only
            callers = {name for name in jit if helper in {c.func.id for c in ast.walk(functions[name])
                                                          if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}}
            owner = helper.removesuffix("_prologue").removesuffix("_epilogue")
            assert callers and all(c.startswith(owner) for c in callers), (helper, callers)
        launchers = {name: _launched(fn) & jit for name, fn in functions.items() if _launched(fn) & jit}
        forward = next(n for n in ast.walk(ast.parse(proposal.source))
                       if isinstance(n, ast.FunctionDef) and n.name == "_triton_forward")
        called = {n.func.id for n in ast.walk(forward) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        backwards = {n for n in launchers if n.endswith("_backward")}      # a kernel's backward (backward.py)
        assert len(launchers) - len(backwards) == _kernel_count(proposal.description), shown(proposal)
        for name in backwards:              # beside its forward's launcher, tied by an autograd.Function
            assert name.removesuffix("_backward") in launchers and f"class {name[:-9]}_function(" in proposal.source
        through = {n.removesuffix("_call") for n in called}          # {kernel}_call: the Function or the launcher
        assert set(launchers) - backwards <= through, f"launchers never called: {set(launchers) - through}\n" \
            f"{shown(proposal)}"
        assert sorted(k for ks in launchers.values() for k in ks) == sorted(jit), "a kernel with no launcher, " \
            f"or launched by two\n{shown(proposal)}"
        assert proposal.source.count("@triton.jit") == len(jit) + len(helpers), shown(proposal)
        for launcher, kernels in launchers.items():
            # one @triton.jit kernel per plan kernel; a reduction may add a variant for short rows
            assert f"{launcher}_kernel" in kernels and len(kernels) <= 2, (launcher, kernels)
            assert all(k.startswith(launcher + "_") for k in kernels), (launcher, kernels)
            # launchers hold ranks, dim indices and knobs; sizes above 8 must not appear there either
            baked = (_constants(functions[launcher], int) & {n for n in sizes if n > 8}) - KNOB_VALUES
            assert not baked, f"{launcher} bakes in sizes {baked}\n{shown(proposal)}"
            for name in kernels:
                fn = functions[name]
                body = lines[fn.lineno: fn.end_lineno]          # the lines after `def ...:`
                assert body[0].strip().startswith("# "), f"{name} has no comment line\n{shown(proposal)}"
                ops = [m.groups() for m in map(COMMENT.match, body) if m]
                assert ops, f"{name}: no '# value = op(...)' comment\n{shown(proposal)}"
                words = {w for pair in ops for w in pair} | {v.rstrip("0123456789").rstrip("_") for v, _ in ops}
                assert any(launcher.removeprefix("triton_").startswith(w) for w in words if w), (launcher, ops)
                # no size baked in: the only integers a kernel holds are 0 and 1 (axes, program ids, range start)
                assert _constants(fn, int) <= {0, 1}, f"{name}: {_constants(fn, int)}\n{shown(proposal)}"
                assert not {float(s) for s in sizes} & _constants(fn, float), shown(proposal)


def test_kernel_count_follows_the_plan(proposed):
    """The fused plan of the long pointwise chain is a single kernel; the unfused plan has one per op."""
    counts = sorted(_kernel_count(p.description) for p in proposed["pointwise_chain"].require())
    assert counts[0] == 1 and counts[-1] > 20, counts


# --------------------------------------------------------------------------------------------------------------
# the search contract: small steps, large steps, determinism

STEP_REFERENCES = ["linear_epilogue", "softmax_dim1_4d", "layer_norm_module", "sum_mean_dims", "broadcast"]


def _knob_changes(parent: Proposal, child: Proposal) -> set[tuple[str, str]]:
    """(kernel index, knob) pairs whose value differs between the two metas (absent: the default)."""
    old, new = parent.meta["builtin"]["knobs"], child.meta["builtin"]["knobs"]
    keys = {(k, name) for knobs in (old, new) for k, values in knobs.items() for name in values}
    return {(k, n) for k, n in keys if old.get(k, {}).get(n) != new.get(k, {}).get(n)}


def _large_steps(stem: str) -> tuple[BuiltinProposer, TaskSpec, list[Proposal]]:
    """Large steps with a growing pool until the fresh plans run out: one proposal per plan, default first."""
    task = task_of(DATA / f"{stem}.py")
    proposer = BuiltinProposer()
    pool: list[Candidate] = []
    parents: list[Proposal] = []
    for seed in range(10):
        proposal = proposer.propose(ProposalRequest(task=task, pool=pool, seed=seed))
        if "default block sizes" not in proposal.description:
            break
        pool.append(Candidate(proposal.source, meta=proposal.meta))
        parents.append(proposal)
    return proposer, task, parents


def _small(proposer: BuiltinProposer, task: TaskSpec, parent: Proposal, seed: int) -> Proposal:
    return proposer.propose(ProposalRequest(task=task, step=SMALL, seed=seed,
                                            parent=Candidate(parent.source, meta=parent.meta)))


def _check_one_change(parent: Proposal, child: Proposal) -> str:
    """A small step changes exactly one knob, or moves exactly one fusion boundary (one or two kernels more or
    fewer); returns which."""
    before, after = parent.meta["builtin"]["options"], child.meta["builtin"]["options"]
    if after != before:                            # a fusion boundary moved: nothing else changed
        assert {k: v for k, v in after.items() if k != "boundaries"} == \
            {k: v for k, v in before.items() if k != "boundaries"}, child.description
        assert len(set(after["boundaries"]) ^ set(before["boundaries"])) == 1, child.description
        assert "fusion boundary moved" in child.description, child.description
        added = len(after["boundaries"]) > len(before["boundaries"])
        delta = _kernel_count(child.description) - _kernel_count(parent.description)
        # a split adds a kernel, and may leave the other branch of a diamond (a comparison feeding a where, now
        # fused) in one of its own; a merge undoes that
        assert (1 <= delta <= 2) if added else (-2 <= delta <= -1), (delta, child.description)
        return "boundary"
    changed = _knob_changes(parent, child)
    assert len(changed) == 1, (changed, child.description)
    (index, name), = changed
    value = child.meta["builtin"]["knobs"][index][name]
    assert any(value in choices.get(name, ()) for choices in KNOB_CHOICES.values()), (name, value)
    assert re.search(rf"\b{name} \d+ -> {value}$", child.description), child.description
    assert _kernel_count(child.description) == _kernel_count(parent.description)
    return "knob"


@pytest.mark.parametrize("stem", STEP_REFERENCES)
def test_small_step_changes_exactly_one_thing(stem):
    proposer, task, parents = _large_steps(stem)
    for parent in parents:
        before = json.dumps(parent.meta, sort_keys=True)
        for seed in SEEDS:
            _check_one_change(parent, _small(proposer, task, parent, seed))
        assert json.dumps(parent.meta, sort_keys=True) == before, "a small step changed its parent's meta"


def test_small_steps_also_move_fusion_boundaries(pool):
    """On a fused chain some seeds split a kernel (a boundary), and splitting and merging back stay VALID."""
    proposer, task, parents = _large_steps("pointwise_chain")
    kinds, jobs = [], []
    for seed in range(20):
        child = _small(proposer, task, parents[0], seed)
        kinds.append(_check_one_change(parents[0], child))
        if kinds[-1] == "boundary":
            merged = _small(proposer, task, child, seed + 1000)
            _check_one_change(child, merged)
            if len(jobs) < 6:                       # judge a few: the interpreter is slow on the long chain
                jobs += [(child, pool.submit(task, child.source)), (merged, pool.submit(task, merged.source))]
    assert "boundary" in kinds and "knob" in kinds, kinds
    for child, future in jobs:
        verdict = future.result(timeout=RESULT_TIMEOUT_S)
        assert verdict.ok, shown(child, verdict)


@pytest.mark.parametrize("stem", STEP_REFERENCES)
def test_small_steps_always_change_the_source(stem):
    proposer, task, parents = _large_steps(stem)
    for parent in parents:
        for seed in SEEDS:
            child = _small(proposer, task, parent, seed)
            assert child.source != parent.source, f"seed {seed}: {child.description}"


@pytest.mark.parametrize("stem", STEP_REFERENCES)
def test_small_steps_are_deterministic_per_seed_and_vary_across_seeds(stem):
    proposer, task, parents = _large_steps(stem)
    sources = []
    for seed in SEEDS:
        first = _small(proposer, task, parents[0], seed)
        again = _small(BuiltinProposer(), task, parents[0], seed)     # a fresh proposer, same seed
        assert first.source == again.source and first.meta == again.meta, f"seed {seed} is not deterministic"
        sources.append(first.source)
    assert len(set(sources)) > 1, "every seed gave the same small step"


def test_small_steps_chain_and_stay_valid(pool):
    """Three small steps in a row from every plan of two references: each changes one thing, each is VALID."""
    jobs = []
    for stem in ("linear_epilogue", "softmax_long_row"):
        proposer, task, parents = _large_steps(stem)
        for parent in parents:
            current = parent
            for seed in (1, 2, 3):
                child = _small(proposer, task, current, seed)
                _check_one_change(current, child)
                jobs.append((child, pool.submit(task, child.source)))
                current = child
    for child, future in jobs:
        verdict = future.result(timeout=RESULT_TIMEOUT_S)
        assert verdict.ok, shown(child, verdict)


@pytest.mark.parametrize("stem, at_least", [("linear_epilogue", 3), ("conv_relu_bias", 3), ("softmax_long_row", 1)])
def test_large_steps_avoid_plans_in_the_pool(stem, at_least):
    """While fresh plans remain, a large step takes one the pool does not have (default knobs, the default
    plan first); once all are used, it picks a known plan with random knobs."""
    proposer, task, parents = _large_steps(stem)
    used = [p.meta["builtin"]["options"] for p in parents]
    assert len(parents) >= at_least, [p.description for p in parents]    # linear/conv: fused, bias split, unfused
    assert len({json.dumps(o, sort_keys=True) for o in used}) == len(used), f"a plan was proposed twice: {used}"
    assert used[0] == PLAN_VARIANTS[0].to_dict(), "the default plan must come first"
    if at_least > 1:
        assert any("bias of" in p.description and p.meta["builtin"]["options"]["split_bias"] for p in parents), \
            [p.description for p in parents]
    pool = [Candidate(p.source, meta=p.meta) for p in parents]
    extra = [proposer.propose(ProposalRequest(task=task, pool=pool, seed=s)) for s in SEEDS]
    for proposal in extra:
        assert proposal.meta["builtin"]["options"] in used, proposal.meta
        assert "random block sizes" in proposal.description
    assert len({p.source for p in extra}) > 1


def test_foreign_pool_and_parent_meta_are_ignored():
    """Candidates from another proposer (no builtin meta) neither crash a step nor count as used plans."""
    task = task_of(DATA / "linear_epilogue.py")
    proposer = BuiltinProposer()
    default = proposer.propose(ProposalRequest(task=task))
    foreign = Candidate("class ModelNew: ...", description="from an LLM", meta={"llm": {"model": "x"}})
    with_pool = proposer.propose(ProposalRequest(task=task, pool=[foreign]))
    assert with_pool.source == default.source
    child = proposer.propose(ProposalRequest(task=task, step=SMALL, parent=foreign, seed=3))
    assert child.meta["builtin"]["options"] == PLAN_VARIANTS[0].to_dict()


def test_large_step_is_deterministic_per_seed():
    task = task_of(DATA / "layer_norm_functional.py")
    first = BuiltinProposer().initial(ProposalRequest(task=task, seed=7), COUNT)
    again = BuiltinProposer().initial(ProposalRequest(task=task, seed=7), COUNT)
    assert [p.source for p in first] == [p.source for p in again]


def test_small_step_needs_a_parent():
    with pytest.raises(ValueError, match="parent"):
        ProposalRequest(task=task_of(DATA / "broadcast.py"), step=SMALL)
    with pytest.raises(ValueError, match="step must be"):
        ProposalRequest(task=task_of(DATA / "broadcast.py"), step="medium")
    assert ProposalRequest(task=task_of(DATA / "broadcast.py"), step=LARGE).parent is None


@pytest.mark.parametrize("stem, old, new", [("runtime_numbers", "0.75, 2]", "-1.25, 5]"),
                                             ("linear_runtime_scale", "1.5]", "-0.5]")])
def test_numbers_of_the_forward_are_passed_at_run_time(stem, old, new, proposed, pool, tmp_path):
    """Candidates written for one set of Python numbers stay VALID when the reference gets others: the numbers
    reach the kernels as arguments, they are not baked in as constants."""
    source = (DATA / f"{stem}.py").read_text()
    assert old in source
    other = tmp_path / f"{stem}.py"
    other.write_text(source.replace(old, new))
    futures = [(p, pool.submit(task_of(other), p.source, name=f"{stem}_other_{i}.py"))
               for i, p in enumerate(proposed[stem].require())]
    for proposal, future in futures:
        verdict = future.result(timeout=RESULT_TIMEOUT_S)
        assert verdict.ok, shown(proposal, verdict)


# --------------------------------------------------------------------------------------------------------------
# unsupported modules: clear ProposalErrors


def _error(name: str) -> ProposalError:
    with pytest.raises(ProposalError) as info:
        BuiltinProposer().initial(ProposalRequest(task=task_of(UNSUPPORTED / name)), COUNT)
    return info.value


def test_data_dependent_control_flow_is_reported_with_its_line():
    path = UNSUPPORTED / "control_flow.py"
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "if x.sum() > 0:" in text)
    message = str(_error(path.name))
    assert "cannot be captured by torch.fx" in message, message
    assert f"line {line}" in message, message
    assert "\n" not in message, message


def test_nothing_to_fuse_is_reported():
    message = str(_error("conv_only.py"))
    assert "nothing to fuse" in message and "conv2d" in message, message
    assert "stay in PyTorch's own library kernels" in message, message


def test_missing_get_inputs_is_reported():
    message = str(_error("no_get_inputs.py"))
    assert "get_inputs()" in message and "does not define" in message, message
    assert "get_init_inputs() the constructor's" in message     # says what the function must return


def test_broken_reference_forward_names_the_real_error():
    message = str(_error("broken_forward.py"))
    assert "mat1 and mat2 shapes cannot be multiplied" in message, message
    assert "tlparse" not in message and "\n" not in message, message


def test_broken_reference_constructor_is_a_proposal_error():
    message = str(_error("broken_constructor.py"))
    assert "in_channels must be divisible by groups" in message, message


# --------------------------------------------------------------------------------------------------------------
# KernelBench level 2, shrunk: the default candidate of every problem is VALID

KERNELBENCH = kernelbench_dir()
if KERNELBENCH is not None:
    KB_PARAMS = [pytest.param(p, id=p.stem) for p in sorted((KERNELBENCH / "level2").glob("*.py"))]
else:
    KB_PARAMS = [pytest.param(None, id="absent", marks=pytest.mark.skip(reason="../shared/kernelbench is absent"))]


def _reference_failure(task: TaskSpec) -> str | None:
    """Why the (shrunk) reference itself cannot run on the CPU, or None when it runs."""
    try:
        loaded = load_task(task)
        torch.manual_seed(0)
        model = loaded.model_class(*loaded.init_args())
        with torch.no_grad():
            model(*loaded.make_inputs(0, "cpu"))
    except Exception as e:  # noqa: BLE001 - any failure means the reference is broken
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return None


@pytest.fixture(scope="module")
def kernelbench_judged(pool, tmp_path_factory) -> dict[str, tuple[TaskSpec, Proposal | BaseException, Any]]:
    folder = tmp_path_factory.mktemp("kernelbench_level2")
    judged = {}
    for param in KB_PARAMS:
        path = param.values[0]
        if path is None:
            continue
        file = folder / path.name
        file.write_text(shrunk_source(path), encoding="utf-8")
        task = task_of(file)
        try:
            proposal = BuiltinProposer().propose(ProposalRequest(task=task))
        except Exception as e:  # noqa: BLE001
            judged[path.stem] = (task, e, None)
            continue
        judged[path.stem] = (task, proposal, pool.submit(task, proposal.source, name=f"{path.stem}_new.py"))
    return judged


@pytest.mark.kernelbench
@pytest.mark.parametrize("problem", KB_PARAMS)
def test_kernelbench_level2_default_candidate_is_valid(problem: Path, kernelbench_judged):
    task, proposal, future = kernelbench_judged[problem.stem]
    if isinstance(proposal, BaseException):
        broken = _reference_failure(task)
        if broken is not None:
            pytest.skip(f"shrinking broke the reference itself ({broken})")
        raise AssertionError("the proposer failed on a reference that runs:\n"
                             + "".join(traceback.format_exception(proposal)))
    verdict = future.result(timeout=RESULT_TIMEOUT_S)
    assert verdict.ok, shown(proposal, verdict)


def test_augmented_assignment_to_an_input_is_refused_with_its_line():
    """torch.fx records `x += t` as `x + t`: the caller's tensor would silently stop changing."""
    message = str(_error("inplace_on_input.py"))
    assert "'x += ...'" in message and "line" in message and "in place" in message, message
