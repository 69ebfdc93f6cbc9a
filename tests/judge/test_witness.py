"""The witnessed trial (judge/witness.py): the candidate's recorded outputs, read without pickle and compared with
the reference's in a process where the candidate never ran. The zygote's use of it is tested in
test_guard_off.py (a forged verdict fails there)."""
from pathlib import Path

import pytest
import torch

from adaexplore_core.judge import witness
from adaexplore_core.judge.protocol import JudgeRequest
from adaexplore_core.task import TaskSpec, load_task

REFS = Path(__file__).resolve().parents[1] / "data" / "judge" / "refs"
CPU = torch.device("cpu")
EXAMPLE_CANDIDATE = (Path(__file__).resolve().parents[2] / "adaexplore_core" / "examples"
                     / "fused_bias_gelu_triton.py")


def test_outputs_round_trip_in_every_dtype_and_shape(tmp_path):
    outputs = [torch.randn(3, 4), torch.randn(2, dtype=torch.float64), torch.randn(5).to(torch.bfloat16),
               torch.tensor(2.5), torch.empty(0, 7), torch.arange(6).reshape(2, 3), torch.rand(4) > 0.5,
               torch.randn(3, dtype=torch.complex64), torch.randn(6, 4).t()]        # a transposed one too
    witness.write_outputs(tmp_path / "out.bin", outputs)
    back = witness.read_outputs(tmp_path / "out.bin")
    assert len(back) == len(outputs)
    for a, b in zip(outputs, back):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


@pytest.mark.parametrize("damage, message", [
    (lambda data: b"PICKLE!!" + data[8:], "format"),
    (lambda data: data[:-3], "shorter"),
    (lambda data: data + b"\0", "longer"),
    (lambda data: data.replace(b'"float32"', b'"object!"'), "header"),
    (lambda data: data.replace(b"[3, 4]", b"[-3,4]"), "negative"),
])
def test_anything_but_the_judges_own_format_is_refused(tmp_path, damage, message):
    path = tmp_path / "out.bin"
    witness.write_outputs(path, [torch.randn(3, 4)])
    chunk = tmp_path / "out.bin.000"
    chunk.write_bytes(damage(chunk.read_bytes()))
    with pytest.raises(witness.WitnessError, match=message):
        witness.read_outputs(path)


def request_for(name: str) -> JudgeRequest:
    spec = TaskSpec.parse(str(REFS / f"{name}.py"))
    return JudgeRequest(id=1, task=spec.to_dict(), candidate_source="", device="cpu", seed=1234, nonce="n0nce")


def record_the_reference_itself(request: JudgeRequest, folder: Path) -> None:
    """What the candidate's process records for an honest candidate: built and warmed up as the judge does."""
    task = load_task(TaskSpec(**request.task))
    model = task.build(task.model_class, witness.build_seed(request), CPU)
    with torch.no_grad():
        model(*task.make_inputs(witness.warmup_seed(request), CPU))
    witness.record(task, model, model, request, CPU, folder)


@pytest.mark.parametrize("name", ["pointwise", "ema_buffer", "batch_norm_train", "rt_a20_dropout_slack", "linear",
                                  "embedding"])
def test_honest_outputs_are_witnessed_with_state_and_random_draws(tmp_path, name):
    """Buffers updated by the forward (the warm-up call) and random draws (same generator state) match."""
    request = request_for(name)
    record_the_reference_itself(request, tmp_path)
    ok, detail = witness.check(request, CPU, tmp_path)
    assert ok, detail
    assert ("outputs and gradients" in detail) == any(tmp_path.glob(witness.GRADIENT_FILE + ".*")), detail


def test_gradients_that_are_not_the_references_are_not_witnessed(tmp_path):
    request = request_for("linear")
    record_the_reference_itself(request, tmp_path)
    grads = witness.read_outputs(tmp_path / witness.GRADIENT_FILE)
    assert len(grads) == 3                        # the input's, then weight and bias by name
    witness.write_outputs(tmp_path / witness.GRADIENT_FILE, grads[:1] + [torch.zeros_like(g) for g in grads[1:]])
    ok, detail = witness.check(request, CPU, tmp_path)
    assert not ok and detail.startswith("gradients: values"), detail
    for chunk in tmp_path.glob(witness.GRADIENT_FILE + ".*"):
        chunk.unlink()
    ok, detail = witness.check(request, CPU, tmp_path)
    assert not ok and "gradients: no recorded outputs" in detail, detail


def test_outputs_larger_than_a_judge_process_may_write_to_one_file_are_split(tmp_path, monkeypatch):
    monkeypatch.setattr(witness, "CHUNK_BYTES", 1000)
    outputs = [torch.randn(300), torch.arange(700)]                 # 1,200 + 5,600 bytes and the header
    witness.write_outputs(tmp_path / "out.bin", outputs)
    assert len(list(tmp_path.glob("out.bin.*"))) == 7
    assert all(torch.equal(a, b) for a, b in zip(outputs, witness.read_outputs(tmp_path / "out.bin")))
    (tmp_path / "out.bin.003").unlink()                             # a chunk missing: the rest is cut short
    with pytest.raises(witness.WitnessError):
        witness.read_outputs(tmp_path / "out.bin")


def test_other_outputs_or_none_are_not_witnessed(tmp_path):
    request = request_for("pointwise")
    ok, detail = witness.check(request, CPU, tmp_path)
    assert not ok and "no recorded outputs" in detail
    record_the_reference_itself(request, tmp_path)
    real = witness.read_outputs(tmp_path / witness.OUTPUT_FILE)
    witness.write_outputs(tmp_path / witness.OUTPUT_FILE, [torch.zeros_like(o) for o in real])
    ok, detail = witness.check(request, CPU, tmp_path)
    assert not ok and detail.startswith("outputs: values"), detail
    other = request_for("pointwise")
    other.nonce = "another"                       # another request's inputs: not this one's outputs
    witness.write_outputs(tmp_path / witness.OUTPUT_FILE, real)
    assert not witness.check(other, CPU, tmp_path)[0]


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (from /proc/*/stat: the parent is the fourth field)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_one_witness_process_checks_a_slots_candidates_and_a_dead_one_is_replaced():
    """The witness lives on between candidates (CUDA's start-up is paid once); killed, the next check starts
    another, and every candidate is still witnessed."""
    import os
    import signal

    from adaexplore_core.judge.pool import JudgeConfig, JudgePool

    reference = TaskSpec.parse(str(REFS / "pointwise.py"))
    honest = (REFS.parent / "candidates" / "pointwise" / "valid.py").read_text()
    wrong = (REFS.parent / "candidates" / "pointwise" / "nan_output.py").read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=60, memory_limit_mb=4096, timing=False)
    with JudgePool(config) as pool:
        zygote = pool._slots[0]
        verdicts = [pool.judge(reference, honest)]
        first = _children(zygote.zygote.proc.pid)
        verdicts += [pool.judge(reference, wrong), pool.judge(reference, honest)]
        kept = _children(zygote.zygote.proc.pid)
        os.kill(first[0], signal.SIGKILL)
        verdicts.append(pool.judge(reference, honest))
        replaced = _children(zygote.zygote.proc.pid)
    assert len(first) == 1 and kept == first and len(replaced) == 1 and replaced != first, (first, kept, replaced)
    assert [v.env["witness_process"] for v in verdicts if v.ok] == [
        "started for it", "kept from an earlier check", "started for it"], [v.env for v in verdicts]
    honest_verdicts = [verdicts[0], verdicts[2], verdicts[3]]
    for v in honest_verdicts:
        assert v.ok and any(c.name == "witnessed" and c.passed for c in v.checks), v.to_json()
        assert v.phase_seconds["witness"] >= 0
    assert not verdicts[1].ok


def test_recorded_outputs_that_are_links_or_oversized_are_refused(tmp_path):
    """Review (2026-12-02): a chunk linked to /dev/zero would be read without end; one longer than the judge
    writes is not its file either."""
    import os

    os.symlink("/dev/zero", tmp_path / "out.bin.000")
    with pytest.raises(witness.WitnessError, match="cannot be read"):
        witness.read_outputs(tmp_path / "out.bin")
    (tmp_path / "big.bin.000").write_bytes(b"x" * (witness.CHUNK_BYTES + 1))
    with pytest.raises(witness.WitnessError, match="larger than the judge writes"):
        witness.read_outputs(tmp_path / "big.bin")
    os.mkfifo(tmp_path / "pipe.bin.000")                  # no writer: a blocking read would never return
    with pytest.raises(witness.WitnessError, match="not a plain file"):
        witness.read_outputs(tmp_path / "pipe.bin")


def test_a_reference_that_changes_torchs_global_state_does_not_carry_it_to_the_next_tasks_witness(tmp_path):
    """Review (2026-12-02): the kept witness imports every reference of its folder; one that sets torch's default
    dtype when imported would leave it set for the next task's check (inputs drawn in float64 there, outputs that
    no longer match an honest candidate's). A witness whose global state changed is not kept."""
    from adaexplore_core.judge.pool import JudgeConfig, JudgePool

    source = (REFS / "pointwise.py").read_text()
    changes_state = source.replace("import torch.nn as nn\n", "import torch.nn as nn\n\ntorch.set_default_dtype("
                                   "torch.float64)\n", 1).replace("torch.randn(64, 128)",
                                                                  "torch.randn(64, 128, dtype=torch.float32)")
    assert changes_state != source
    (tmp_path / "sets_float64.py").write_text(changes_state)
    (tmp_path / "plain.py").write_text(source)
    honest = (REFS.parent / "candidates" / "pointwise" / "valid.py").read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=60, memory_limit_mb=4096, timing=False)
    with JudgePool(config) as pool:
        first = pool.judge(TaskSpec.parse(str(tmp_path / "sets_float64.py")), honest)
        second = pool.judge(TaskSpec.parse(str(tmp_path / "plain.py")), honest)
    assert first.ok, first.to_json()
    assert second.ok and any(c.name == "witnessed" and c.passed for c in second.checks), second.to_json()


@pytest.mark.parametrize("reference", ["python_random", "numpy_random"])
def test_a_reference_drawing_from_python_or_numpy_random_is_witnessed_alike_every_time(reference):
    """Red team (2026-12-03): the judge seeded only torch. Python reseeds ``random`` in every fork, so the witness
    built other weights than the candidate's process (an honest candidate invalid at once); numpy's state is
    inherited by every fork, so the kept witness drew on where each fresh process starts over (invalid from the
    second candidate on). Every build now seeds all three."""
    if reference == "numpy_random":
        pytest.importorskip("numpy")
    from adaexplore_core.judge.pool import JudgeConfig, JudgePool

    folder = REFS.parent / "init_draws"     # the shipped example, its shift drawn by random or numpy
    honest = EXAMPLE_CANDIDATE.read_text()
    config = JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=60, memory_limit_mb=4096, timing=False)
    with JudgePool(config) as pool:
        verdicts = [pool.judge(TaskSpec.parse(str(folder / f"{reference}.py")), honest) for _ in range(3)]
    for v in verdicts:
        assert v.ok and any(c.name == "witnessed" and c.passed for c in v.checks), v.to_json()


def _pool():
    from adaexplore_core.judge.pool import JudgeConfig, JudgePool
    return JudgePool(JudgeConfig(devices=("cpu",), workers_per_device=1, timeout_s=60, memory_limit_mb=4096,
                                 timing=False))


def _witnessed(verdict) -> bool:
    return verdict.ok and any(c.name == "witnessed" and c.passed for c in verdict.checks)


def test_a_reference_that_replaces_a_torch_nn_init_function_does_not_carry_it_to_the_next_tasks_witness(tmp_path):
    """Red team (2026-12-03): ``torch.nn.init`` was not among the namespaces watched, so a reference that widened
    ``kaiming_uniform_`` when imported left it so in the kept witness: the next task of the folder, the plain
    example, was built there with other weights than in its candidate's process (an honest candidate invalid)."""
    source = (EXAMPLE_CANDIDATE.parent / "fused_bias_gelu.py").read_text()
    widens = source.replace("class Model(", "_kaiming = torch.nn.init.kaiming_uniform_\n\n\n"
                            "def _wider(tensor, *args, **kwargs):\n    _kaiming(tensor, *args, **kwargs)\n"
                            "    with torch.no_grad():\n        return tensor.mul_(3.0)\n\n\n"
                            "torch.nn.init.kaiming_uniform_ = _wider\n\n\nclass Model(", 1)
    assert widens != source
    (tmp_path / "widens_init.py").write_text(widens)
    (tmp_path / "plain.py").write_text(source)
    honest = EXAMPLE_CANDIDATE.read_text()
    with _pool() as pool:
        first = pool.judge(TaskSpec.parse(str(tmp_path / "widens_init.py")), honest)
        second = pool.judge(TaskSpec.parse(str(tmp_path / "plain.py")), honest)
    assert _witnessed(first), first.to_json()
    assert _witnessed(second), second.to_json()


def test_a_module_the_reference_imports_from_its_folder_is_witnessed_as_edited_since(tmp_path):
    """Red team (2026-12-03): the kept witness kept the reference's sibling module in ``sys.modules``; edited
    between two judgings, the witness computed with the old one (the honest candidate of the new one invalid, a
    candidate of the old one witnessed). The user's modules are forgotten after each check, and the witness is
    still kept."""
    (tmp_path / "scale.py").write_text("SCALE = 2.0\n")
    reference = (REFS / "pointwise.py").read_text().replace("import torch.nn as nn\n",
                                                            "import torch.nn as nn\nfrom scale import SCALE\n", 1)
    reference = reference.replace("torch.relu(x * 2 + 1)", "torch.relu(x * SCALE + 1)")
    (tmp_path / "scaled.py").write_text(reference)
    twice = (REFS.parent / "candidates" / "pointwise" / "valid.py").read_text()
    thrice = twice.replace("x * 2.0 + 1.0", "x * 3.0 + 1.0").replace("x * 2 + 1", "x * 3 + 1")
    assert thrice.count("3") >= twice.count("3") + 2
    spec = TaskSpec.parse(str(tmp_path / "scaled.py"))
    with _pool() as pool:
        before = pool.judge(spec, twice)
        zygote = pool._slots[0].zygote.proc.pid
        first_witness = _children(zygote)
        (tmp_path / "scale.py").write_text("SCALE = 3.0\n")
        after = [pool.judge(spec, thrice), pool.judge(spec, twice)]
        kept = _children(zygote)
    assert _witnessed(before), before.to_json()
    assert _witnessed(after[0]), after[0].to_json()
    assert not after[1].ok, after[1].to_json()
    assert len(first_witness) == 1 and kept == first_witness, (first_witness, kept)


def test_flags_a_reference_sets_when_imported_are_set_back_and_the_witness_is_kept(tmp_path):
    """Red team (2026-12-03): a reference that sets ``torch.backends.cudnn.benchmark`` when imported (common in
    training scripts) retired the witness after every check (on the H200 ~1.3 s a candidate). The flags are set
    back instead; a plain task of the folder checked next sees torch's defaults."""
    source = (REFS / "pointwise.py").read_text()
    sets_flags = source.replace("import torch.nn as nn\n", "import torch.nn as nn\n\n"
                                "torch.backends.cudnn.benchmark = True\n"
                                "torch.set_float32_matmul_precision('high')\n", 1)
    assert sets_flags != source
    (tmp_path / "sets_flags.py").write_text(sets_flags)
    (tmp_path / "plain.py").write_text(source)
    honest = (REFS.parent / "candidates" / "pointwise" / "valid.py").read_text()
    with _pool() as pool:
        verdicts = [pool.judge(TaskSpec.parse(str(tmp_path / "sets_flags.py")), honest)]
        zygote = pool._slots[0].zygote.proc.pid
        first_witness = _children(zygote)
        verdicts += [pool.judge(TaskSpec.parse(str(tmp_path / name)), honest) for name in ("sets_flags.py",
                                                                                          "plain.py")]
        kept = _children(zygote)
    for v in verdicts:
        assert _witnessed(v), v.to_json()
    assert len(first_witness) == 1 and kept == first_witness, (first_witness, kept)


def test_a_reference_that_registers_a_torch_operator_library_when_imported_is_witnessed_every_time(tmp_path):
    """Red team (2026-12-03): the kept witness imports the reference again for every check; a reference that
    defines its own operator namespace with ``torch.library`` raised "Only a single TORCH_LIBRARY can be used
    to register the namespace" from the second check on (every later candidate an internal error)."""
    source = (EXAMPLE_CANDIDATE.parent / "fused_bias_gelu.py").read_text()
    own_op = source.replace("class Model(", 'LIBRARY = torch.library.Library("adaexplore_test_ops", "DEF")\n'
                            'LIBRARY.define("shift_gelu(Tensor y, Tensor shift) -> Tensor")\n'
                            'LIBRARY.impl("shift_gelu", lambda y, shift: torch.nn.functional.gelu(y + shift), '
                            '"CompositeImplicitAutograd")\n\n\nclass Model(', 1)
    own_op = own_op.replace("y = self.linear(x) + self.shift\n        return torch.nn.functional.gelu(y)",
                            "return torch.ops.adaexplore_test_ops.shift_gelu(self.linear(x), self.shift)")
    assert own_op.count("adaexplore_test_ops") == 2
    (tmp_path / "own_op.py").write_text(own_op)
    honest = EXAMPLE_CANDIDATE.read_text()
    with _pool() as pool:
        verdicts = [pool.judge(TaskSpec.parse(str(tmp_path / "own_op.py")), honest) for _ in range(3)]
    for v in verdicts:
        assert _witnessed(v), v.to_json()


@pytest.mark.parametrize("generator", ["python_random", "numpy_random"])
def test_a_reference_whose_forward_draws_from_python_or_numpy_random_accepts_a_candidate_drawing_alike(generator):
    """Red team (2026-12-03): the judge put only torch's generators back before each of the two forwards it
    compares, so a reference drawing from ``random`` (LayerDrop as older model code writes it) or numpy in its
    forward made an honest candidate that draws alike differ from it."""
    if generator == "numpy_random":
        pytest.importorskip("numpy")
    folder = REFS.parent / "forward_draws"
    with _pool() as pool:
        verdict = pool.judge(TaskSpec.parse(str(folder / f"{generator}.py")),
                             (folder / f"{generator}_candidate.py").read_text())
    assert _witnessed(verdict), verdict.to_json()


PRISTINE = {"python_random": ("import random\n", "random.getstate()[1][-1] != 624"),
            "numpy_random": ("import numpy\n", "numpy.random.get_state()[2] != 624")}


@pytest.mark.parametrize("generator", sorted(PRISTINE))
def test_a_candidate_right_only_while_a_generator_is_freshly_seeded_is_rejected(generator):
    """Red team (2026-12-03): the judge seeds Python's and numpy's generators before every build and draw of
    inputs, and nothing drew from them before the forward, so a candidate could tell the judge (a generator at
    position 624, as just seeded) from a program whose generators have drawn (here the reference's own
    constructor draws): right there, the shift dropped here. Each generator is moved on after seeding."""
    if generator == "numpy_random":
        pytest.importorskip("numpy")
    module, moved = PRISTINE[generator]
    honest = EXAMPLE_CANDIDATE.read_text()
    cheat = module + honest.replace(
        "        autograd = torch.is_grad_enabled()",
        f"        if {moved}:      # drawn since seeded: a program, not the judge\n"
        "            return torch.nn.functional.gelu(self.linear(x))\n        autograd = torch.is_grad_enabled()", 1)
    assert moved in cheat
    with _pool() as pool:
        verdict = pool.judge(TaskSpec.parse(str(REFS.parent / "init_draws" / f"{generator}.py")), cheat)
    assert not verdict.ok and verdict.verdict == "invalid", verdict.to_json()
