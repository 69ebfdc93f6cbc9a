"""The pool/worker protocol: secret scrubbing, message decoding, request round trip; and, end to end,
that a real judge worker never sees the parent's credentials."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.judge.protocol import JudgeRequest, decode, encode, scrubbed_environment
from adaexplore_core.task import TaskSpec

SECRETS = {
    "OPENAI_API_KEY": "sk-test", "MY_TOKEN": "t", "AWS_SECRET_ACCESS_KEY": "a", "AWS_REGION": "eu",
    "GITHUB_TOKEN": "g", "GH_PAT": "g", "HF_TOKEN": "h", "HF_HOME": "/hf", "ANTHROPIC_BASE": "x",
    "DB_PASSWORD": "p", "some_api_key": "lower", "AZURE_CLIENT": "z", "GOOGLE_APPLICATION_CREDENTIALS": "/c",
    "SESSION_COOKIE": "c", "BASIC_AUTH": "b", "NPM_CONFIG__AUTH": "n",
}
KEPT = {"PATH": "/usr/bin:/bin", "HOME": "/home/u", "CUDA_VISIBLE_DEVICES": "0,1", "PYTHONPATH": "/x",
        "LANG": "C.UTF-8", "TRITON_CACHE_DIR": "/tmp/t", "OMP_NUM_THREADS": "2", "LD_LIBRARY_PATH": "/lib"}


def test_scrubbed_environment_removes_secrets_and_keeps_the_rest():
    env = scrubbed_environment({**SECRETS, **KEPT})
    assert env == KEPT


def test_scrubbed_environment_returns_a_copy():
    source = dict(KEPT)
    env = scrubbed_environment(source)
    env["NEW"] = "1"
    assert "NEW" not in source


def test_scrubbed_environment_defaults_to_os_environ(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-os")
    monkeypatch.setenv("ADAEXPLORE_TEST_MARKER", "kept")
    env = scrubbed_environment()
    assert "OPENAI_API_KEY" not in env
    assert env["ADAEXPLORE_TEST_MARKER"] == "kept"


@pytest.mark.parametrize("line", [b"[1, 2]", b"3", b'"judge"', b"null", b"true"])
def test_decode_rejects_non_objects(line):
    with pytest.raises(ValueError, match="JSON object"):
        decode(line)


@pytest.mark.parametrize("line", [b"not json", b"{\"a\": ", b"\xff\xfe"])
def test_decode_rejects_garbage_with_value_error(line):
    with pytest.raises(ValueError):            # the pool treats ValueError as "not a worker message"
        decode(line)


def test_encode_is_one_line():
    data = encode({"type": "x", "text": "a\nb"})
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert decode(data.rstrip(b"\n")) == {"type": "x", "text": "a\nb"}


def test_judge_request_round_trip():
    request = JudgeRequest(id=7, task={"path": "/r.py", "class_name": "Model", "source": None},
                           candidate_source="print('x')\n", device="cuda:1", trials=6, seed=2 ** 61 + 3,
                           timing=False, tolerance={"atol": 1e-3, "rtol": 1e-3, "rel_l2": 1e-2},
                           candidate_name="c.py", nonce="ab" * 16, options={"k": [1, 2]})
    message = request.to_message()
    assert message["type"] == "judge"
    line = encode(message)
    back = JudgeRequest.from_message(decode(line.rstrip(b"\n")))
    assert back == request


def test_judge_request_defaults_round_trip():
    request = JudgeRequest(id=1, task={}, candidate_source="", device="cpu")
    assert JudgeRequest.from_message(json.loads(json.dumps(request.to_message()))) == request


# end to end ----------------------------------------------------------------------------------------------

REFERENCE = textwrap.dedent('''
    import torch
    import torch.nn as nn


    class Model(nn.Module):
        def forward(self, x):
            return x * 2.0


    def get_inputs():
        return [torch.randn(16)]


    def get_init_inputs():
        return []
''')

CANDIDATE = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl


    @triton.jit
    def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        tl.store(out_ptr + offs, (x * 2.0).to(out_ptr.dtype.element_ty), mask=mask)


    class ModelNew(nn.Module):
        def forward(self, x):
            if torch.is_grad_enabled() and x.requires_grad or \
                    torch.autograd.forward_ad.unpack_dual(x).tangent is not None:
                return x * 2.0
            out = torch.empty_like(x)
            double_kernel[(triton.cdiv(x.numel(), 16),)](x, out, x.numel(), BLOCK=16)
            return out
''')


def read_environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item and item)  # type: ignore


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/environ")
def test_worker_process_never_sees_secrets(tmp_path, monkeypatch):
    """A real CPU pool judges a candidate; the environment of the process its candidate processes are forked from
    (from /proc) has no credentials."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("HF_TOKEN", "hf-must-not-leak")
    monkeypatch.setenv("ADAEXPLORE_TEST_MARKER", "visible")
    ref = tmp_path / "ref.py"
    ref.write_text(REFERENCE, encoding="utf-8")
    config = JudgeConfig(devices=("cpu",), timeout_s=60, memory_limit_mb=4096, trials=5)
    with JudgePool(config) as pool:
        verdict = pool.judge(TaskSpec.parse(str(ref)), CANDIDATE, name="double.py")
        assert verdict.ok, verdict.to_json()
        zygote = pool._slots[0].zygote              # kept warm; every candidate's process is forked from it
        assert zygote is not None and zygote.proc.poll() is None
        environ = {k.decode(): v.decode() for k, v in read_environ(zygote.proc.pid).items()}
    assert environ.get("ADAEXPLORE_TEST_MARKER") == "visible"   # the right process, ordinary variables pass
    assert environ.get("TRITON_INTERPRET") == "1"
    assert "OPENAI_API_KEY" not in environ
    assert "HF_TOKEN" not in environ
    assert not any("must-not-leak" in v for v in environ.values())
