"""torch's global state as the judge snapshots it: changes are named, lazy patches by torch itself are not."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import torch

from adaexplore_core.judge.globalstate import GlobalState


def test_no_change_no_finding():
    assert GlobalState().changes() == []


def test_default_dtype_and_replaced_function_are_named():
    state = GlobalState()
    original = torch.relu
    torch.set_default_dtype(torch.float64)
    torch.relu = lambda x: x
    try:
        changes = state.changes()
    finally:
        torch.set_default_dtype(torch.float32)
        torch.relu = original
    assert any(c.startswith("default dtype") for c in changes)
    assert any(c.startswith("replaced") and "torch.relu" in c for c in changes)
    assert state.changes() == []


def test_a_replaced_method_of_a_class_the_allowlist_reaches_is_named(monkeypatch):
    """torch.autograd.Function.apply replaced made every custom autograd Function of the program return
    zeros, unseen (red team b2); a kernel's launch path likewise."""
    from triton.runtime.jit import JITFunction
    state = GlobalState()
    monkeypatch.setattr(torch.autograd.Function, "apply", classmethod(lambda cls, *args: torch.zeros(1)))
    monkeypatch.setattr(JITFunction, "run", lambda self, *args, **kwargs: None)
    changes = " ".join(state.changes())
    assert "torch.autograd.Function.apply" in changes and "triton.runtime.JITFunction.run" in changes, changes


def test_an_active_function_mode_is_seen():
    from torch.overrides import TorchFunctionMode

    class Passthrough(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    state = GlobalState()
    with Passthrough():
        assert any(c.startswith("function modes") for c in state.changes())


def test_judge_processes_import_torchs_self_patching_modules_first():
    """torch._dynamo replaces torch.manual_seed when it is first imported: the judge's processes import it
    before they take a snapshot, so a lazy import later is not taken for a candidate's patch."""
    script = textwrap.dedent("""
        from adaexplore_core.judge.worker import prepare_process
        from adaexplore_core.judge.globalstate import GlobalState
        import os
        os.environ["TRITON_INTERPRET"] = "1"
        prepare_process()
        state = GlobalState()
        import torch._dynamo, torch._inductor  # what a later lazy import would bring
        print(state.changes())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_flags_are_set_back_and_then_no_change_is_named():
    state = GlobalState()
    torch.set_default_dtype(torch.float64)
    torch.backends.cudnn.benchmark = not torch.backends.cudnn.benchmark
    torch.set_float32_matmul_precision("medium")
    try:
        named = " ".join(state.changes())
        assert all(f in named for f in ("default dtype", "matmul precision", "cudnn")), named
        state.restore_flags()
        assert state.changes() == []
    finally:
        torch.set_default_dtype(torch.float32)


def test_a_replaced_torch_nn_init_function_is_named(monkeypatch):
    state = GlobalState()
    monkeypatch.setattr(torch.nn.init, "kaiming_uniform_", lambda tensor, *a, **k: tensor)
    assert any("torch.nn.init.kaiming_uniform_" in c for c in state.changes())


def test_names_added_by_torch_itself_are_not_foreign_and_a_references_own_are(monkeypatch):
    state = GlobalState()
    monkeypatch.setattr(torch.Tensor, "torchs_own", torch.relu, raising=False)
    assert state.changes(added="foreign") == [] and state.changes() != []

    def references_own(self):
        return self

    monkeypatch.setattr(torch.Tensor, "references_own", references_own, raising=False)
    assert any("torch.Tensor.references_own" in c for c in state.changes(added="foreign"))
