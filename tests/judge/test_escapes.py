"""The sandbox holds even when the static guard is bypassed.

Every escape case of the corpus (``escape_*``, the older import/exec/open/forged-verdict cases, and the cases that
rewrite the judge from inside) is judged with ``static_guard=False``, so its code really runs. Each escape, when it
is not stopped, does something visible from here: it creates ``/tmp/adaexplore_escape_<stem>`` (writing it, or
``touch`` through a shell), connects to 127.0.0.1:47231 (a listener this module opens), leaks a secret planted in
/tmp into its verdict, or gets a verdict it forged. The sandbox must stop all of that; the static guard is a
second line, not the only one.

``SANDBOX_LANDED`` says whether the OS sandbox is expected to stop the escapes: while it is False, the cases that
do harm without a sandbox are strict xfails (``ADAEXPLORE_SANDBOX=off`` with the flag False shows them all xfail). ``BEYOND_SANDBOX`` lists what no OS sandbox can stop (the candidate
lying from inside the process that produces the verdict); those stay xfails, with their own reason, until the
verdict no longer comes from a process that runs candidate code.

Where the judge cannot sandbox at all on this machine (it answers every candidate with an internal error that
says so), the cases are skipped: nothing ran, so nothing was proven.
"""
from __future__ import annotations

import json
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.judge.verdict import Verdict
from adaexplore_core.task import TaskSpec

SANDBOX_LANDED = True        # False: the OS sandbox (Landlock + seccomp) is not expected to stop the escapes yet

DATA = Path(__file__).resolve().parents[1] / "data" / "judge"
REFS, CANDIDATES = DATA / "refs", DATA / "candidates"
PORT = 47231
WATCHED = Path("/tmp")                       # the markers' folder: outside every worker's own folder
MARKER_PREFIX = "adaexplore_escape_"
SECRET = WATCHED / "adaexplore_secret_for_escapes"
CONFIG = JudgeConfig(devices=("cpu",), workers_per_device=2, static_guard=False, timeout_s=30, memory_limit_mb=2048)
RESULT_TIMEOUT_S = 240

# Older corpus cases that reach the outside world or the judge's protocol; they do no visible harm, but must stay so.
OLDER = ("import_os", "import_subprocess", "import_ctypes", "import_pickle", "import_importlib", "import_sys",
         "import_threading", "exec_call", "eval_call", "open_call", "dunder_import", "from_builtins_import",
         "globals_call", "forged_verdict_frame_walk", "forged_verdict_numpy_savetxt")
HARMLESS_WITHOUT_SANDBOX = {f"pointwise/{stem}" for stem in OLDER} | {"pointwise/escape_os_via_torch_attribute"}
# Judge forgeries that the in-process checks catch with or without the sandbox (a replaced judge function shows in the
# global-state snapshot; a bumped launch counter fails the run with every launch skipped).
HARMLESS_WITHOUT_SANDBOX |= {"pointwise/patch_judge_compare_via_frames", "pointwise/patch_judge_sys_modules_map_getattr",
                             "pointwise/patch_judge_launch_counter_via_frames"}

# Cases whose result is worthless whatever it says: they compute nothing (or zeros) and rely on forging the verdict
# or blinding the judge, so any 'valid' verdict for them is forged.
JUDGE_FORGERIES = ("pointwise/forged_verdict_frame_walk", "pointwise/forged_verdict_numpy_savetxt",
                   "pointwise/escape_forged_verdict_with_nonce", "pointwise/escape_forged_verdict_getattr_alias",
                   "pointwise/patch_judge_compare_via_frames",
                   "pointwise/patch_judge_sys_modules_map_getattr", "pointwise/patch_judge_launch_counter_via_frames",
                   "pointwise/patch_judge_disable_global_state_via_frames",
                   # torch patched through a method called with a foreign self: the guard refuses the call now
                   # (red team b2); past it, the global-state check must catch each
                   "layer_norm/patch_module_parameters_hides_weights", "layer_norm/patch_parameter_copy_noop",
                   "layer_norm/patch_layernorm_forward_ignores_affine",
                   "batch_norm_train/patch_module_named_buffers_hides_state",
                   "masked_softmax/patch_tensor_masked_fill_after_six_calls",
                   "masked_softmax/patch_tensor_masked_fill_unbound_method",
                   "linear/patch_nn_linear_forward_drops_bias")

# Cases the judge is known to lose (a strict xfail each, with the reason). None today: a verdict forged with the
# request's nonce no longer stands, since the witness process, where the candidate never ran, compares ModelNew's
# recorded outputs and gradients with the reference's (judge/witness.py); and the candidate that switches the
# global-state check off computes zeros by its second call, which the witnessed backward is.
BEYOND_SANDBOX: dict[str, str] = {}


def _cases() -> list[Path]:
    escapes = sorted(CANDIDATES.glob("*/escape_*.py"))
    older = [CANDIDATES / f"{case}.py" for case in sorted(HARMLESS_WITHOUT_SANDBOX)]
    forgeries = [CANDIDATES / f"{case}.py" for case in JUDGE_FORGERIES]
    paths, seen = [], set()
    for path in escapes + older + forgeries:
        if path.is_file() and path not in seen:
            seen.add(path)
            paths.append(path)
    return paths


def case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def is_network(path: Path) -> bool:
    return str(PORT) in path.read_text(encoding="utf-8")


def _marks(path: Path) -> list:
    cid = case_id(path)
    if cid in BEYOND_SANDBOX:
        return [pytest.mark.xfail(strict=True, reason=BEYOND_SANDBOX[cid])]
    if not SANDBOX_LANDED and cid not in HARMLESS_WITHOUT_SANDBOX:
        return [pytest.mark.xfail(strict=True, reason="no OS sandbox yet")]
    return []


CASES = _cases()
PARAMS = [pytest.param(p, id=case_id(p), marks=_marks(p)) for p in CASES]


class Listener:
    """Counts TCP connections that reach 127.0.0.1:PORT."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", PORT))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            self.count += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@dataclass
class Outcome:
    verdict: Verdict
    connections: int                  # connections seen while this case (or its batch) was being judged
    new_entries: list[str] = field(default_factory=list)   # new marker-like entries in the watched folders


def _markers(stem: str) -> list[Path]:
    return sorted(WATCHED.glob(f"{MARKER_PREFIX}{stem}*"))


def _watched_entries() -> set[str]:
    entries = {str(p) for p in WATCHED.glob(f"{MARKER_PREFIX}*")}
    entries |= {str(p) for p in REFS.iterdir()} | {str(p) for p in CANDIDATES.rglob("*")}
    return {e for e in entries if "__pycache__" not in e}


@pytest.fixture(scope="module")
def judged():
    """Judge everything once: the cases without network code together, then the network ones one at a time (so
    that a connection is attributed to the case that made it)."""
    for path in CASES:
        for marker in _markers(path.stem):
            marker.unlink()
    token = secrets.token_hex(16)
    SECRET.write_text(token + "\n", encoding="utf-8")
    listener = Listener()
    pool = JudgePool(CONFIG)
    outcomes: dict[str, Outcome] = {}
    try:
        before = _watched_entries()
        batch = [p for p in CASES if not is_network(p)]
        start = listener.count
        futures = {case_id(p): pool.submit(TaskSpec.parse(str(REFS / f"{p.parent.name}.py")),
                                           p.read_text(encoding="utf-8"), name=p.name) for p in batch}
        verdicts = {cid: f.result(timeout=RESULT_TIMEOUT_S) for cid, f in futures.items()}
        time.sleep(0.5)
        batch_connections = listener.count - start
        for cid, verdict in verdicts.items():
            outcomes[cid] = Outcome(verdict, batch_connections)
        for path in [p for p in CASES if is_network(p)]:
            start = listener.count
            verdict = pool.judge(TaskSpec.parse(str(REFS / f"{path.parent.name}.py")),
                                 path.read_text(encoding="utf-8"), name=path.name)
            time.sleep(0.5)                       # a connection made from a thread may land just after the verdict
            outcomes[case_id(path)] = Outcome(verdict, listener.count - start)
        new = sorted(_watched_entries() - before)
        for outcome in outcomes.values():
            outcome.new_entries = new
        yield outcomes, token
    finally:
        pool.close()
        listener.close()
        SECRET.unlink(missing_ok=True)
        for path in CASES:                        # the evidence was read by the tests; leave /tmp clean
            for marker in _markers(path.stem):
                marker.unlink()


def forged(case: str, verdict: Verdict) -> bool:
    """A 'valid' the judge did not really reach: for a judge forgery any valid verdict, otherwise one without the
    trials and the passed correctness check a real verdict carries."""
    if not verdict.ok:
        return False
    if case in JUDGE_FORGERIES:
        return True
    return verdict.trials < CONFIG.trials or not any(c.name == "correctness" and c.passed for c in verdict.checks)


@pytest.mark.parametrize("path", PARAMS)
def test_escape_is_contained(path: Path, judged):
    outcomes, token = judged
    cid = case_id(path)
    outcome = outcomes[cid]
    verdict = outcome.verdict
    shown = f"{cid}: {json.dumps(verdict.to_dict(), sort_keys=True)[:1500]}"
    if verdict.stage == "internal" and "sandbox" in verdict.reason.lower():
        pytest.skip(f"the judge cannot sandbox candidates here: {verdict.reason}")
    leftovers = [str(p) for p in _markers(path.stem)]
    assert not leftovers, f"{cid} created {leftovers} outside its folder\n{shown}"
    mine = [e for e in outcome.new_entries if Path(e).name.startswith(MARKER_PREFIX + path.stem)]
    assert not mine, f"{cid}: new entries in a watched folder: {mine}\n{shown}"
    assert outcome.connections == 0, f"{cid}: {outcome.connections} connection(s) reached 127.0.0.1:{PORT}\n{shown}"
    assert token not in json.dumps(verdict.to_dict()), f"{cid} read the secret {SECRET} into its verdict\n{shown}"
    assert not forged(cid, verdict), f"{cid} got a forged 'valid' verdict\n{shown}"


@pytest.mark.xfail(not SANDBOX_LANDED, strict=True, reason="no OS sandbox yet")
def test_nothing_else_appeared(judged):
    """Nothing at all appeared in the watched folders: no marker (of any case) and no file beside the corpus."""
    outcomes, _ = judged
    if any(o.verdict.stage == "internal" and "sandbox" in o.verdict.reason.lower() for o in outcomes.values()):
        pytest.skip("the judge cannot sandbox candidates here")
    new = next(iter(outcomes.values())).new_entries if outcomes else []
    assert not new, f"new entries in the watched folders: {new}"


# The read-only queries a patch needs to follow a program (the dtype autocast computes in, whether an input
# carries a forward-mode tangent) are allowed; their setters and every other name beside them stay refused.
QUERY_CANDIDATE = """import torch
import torch.nn as nn
import triton


@triton.jit
def kernel(x_ptr):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        value = {}
        return x
"""
ALLOWED_QUERIES = ("torch.get_autocast_dtype(x.device.type)", "torch.autograd.forward_ad.unpack_dual(x).tangent")
REFUSED_BESIDE_THEM = ("torch.set_autocast_dtype('cpu', torch.float16)", "torch.get_autocast_gpu_dtype()",
                       "torch.get_autocast_cpu_dtype()", "torch.set_autocast_enabled('cpu', False)",
                       "torch.is_autocast_cache_enabled()", "torch.autograd.forward_ad.make_dual(x, x)",
                       "torch.autograd.forward_ad.enter_dual_level()", "torch.autograd.forward_ad.exit_dual_level()",
                       "torch.autograd.forward_ad.dual_level()", "torch.autograd.forward_ad.os",
                       "torch.autograd.graph", "torch.autograd.backward", "torch.autograd.functional")


def test_the_guard_allows_torch_autograd_grad():
    """A backward run with grad mode on (create_graph) differentiates a kernel's ops in torch (the built-in's
    recomputed_grads): torch.autograd.grad computes, it reaches no state the guard keeps candidates from."""
    from adaexplore_core.judge.guard import check_source
    assert check_source(QUERY_CANDIDATE.format("torch.autograd.grad(x, x)")) == []


@pytest.mark.parametrize("query", ALLOWED_QUERIES)
def test_the_guard_allows_the_read_only_queries(query: str):
    from adaexplore_core.judge.guard import check_source
    assert check_source(QUERY_CANDIDATE.format(query)) == []


@pytest.mark.parametrize("use", REFUSED_BESIDE_THEM)
def test_the_guard_allows_nothing_beside_them(use: str):
    from adaexplore_core.judge.guard import check_source
    findings = check_source(QUERY_CANDIDATE.format(use))
    assert findings and use.split("(")[0] in str(findings[0]), findings
