"""The protocol stream is clean: with a strict reader (every byte of stdout must belong to a Content-Length
framed JSON-RPC message), a server whose code prints to stdout — print(), a raw write to fd 1, a child
process inheriting fd 1 — still speaks valid LSP. pytest-lsp would skip such junk, so it is read by hand."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

NOISY_SERVER = textwrap.dedent("""\
    import os, subprocess, sys
    import adaexplore_server.server as server_module
    from adaexplore_server.__main__ import main

    original = server_module.create_server

    def noisy():
        print("a stray print")                       # after main() moved fd 1
        os.write(1, b"a raw write to fd 1\\n")
        subprocess.run([sys.executable, "-c", "print('a child process')"])
        return original()

    server_module.create_server = noisy
    sys.exit(main())
""")


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def read_messages(data: bytes) -> list[dict]:
    """Parse ``data`` strictly as a sequence of framed messages; any other byte fails the test."""
    messages = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        assert sep, f"junk on the protocol stream: {data[:200]!r}"
        headers = dict(line.split(": ", 1) for line in head.decode("ascii").split("\r\n"))
        assert set(headers) <= {"Content-Length", "Content-Type"}, f"junk on the protocol stream: {head!r}"
        length = int(headers["Content-Length"])
        body, data = rest[:length], rest[length:]
        messages.append(json.loads(body))
    return messages


def test_stdout_junk_never_reaches_the_protocol_stream(tmp_path):
    requests = b"".join([
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"processId": None, "rootUri": None, "capabilities": {},
                          "initializationOptions": {"cacheDir": str(tmp_path / "cache")}}}),
        frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        frame({"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
               "params": {"command": "adaexplore.listJobs", "arguments": []}}),
        frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": None}),
        frame({"jsonrpc": "2.0", "method": "exit", "params": None}),
    ])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", NOISY_SERVER], input=requests, capture_output=True, timeout=120,
                          env=env, cwd=tmp_path)
    messages = read_messages(done.stdout)
    responses = {m["id"]: m for m in messages if "id" in m and "method" not in m}
    assert responses[1]["result"]["serverInfo"]["name"] == "adaexplore"
    commands = responses[1]["result"]["capabilities"]["executeCommandProvider"]["commands"]
    assert "adaexplore.optimize" in commands and "adaexplore.apply" in commands
    assert responses[2]["result"] == []
    assert "id" in responses[3]
    stderr = done.stderr.decode()
    assert "a stray print" in stderr and "a raw write to fd 1" in stderr and "a child process" in stderr


def test_the_server_process_never_imports_torch(tmp_path):
    check = textwrap.dedent("""\
        import sys
        from adaexplore_server.server import create_server
        from adaexplore_server import analysis, cache, jobs, patch
        create_server()
        text = "import torch\\nclass M(torch.nn.Module):\\n    def forward(self, x):\\n        return x\\n"
        assert analysis.find_modules(text)[0].name == "M"
        print("torch" in sys.modules, "triton" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]
