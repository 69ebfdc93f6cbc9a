"""Language-server responsiveness: codeAction / codeLens / hover latency on a 3,000-line file while a search
job runs, and the server's resident memory when idle.

    python benchmarks/lsp_latency.py [--requests 200] [--device cpu] [--out results.json]

The client is pygls's own (the JSON-RPC stack pytest-lsp uses) over stdio; latency is the wall time from
sending a request to its response, measured in the client (its garbage collector paused while measuring).
RSS is VmRSS of the server process from /proc.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

ROOT = Path(__file__).resolve().parents[1]

CLASS = textwrap.dedent('''\
    # adaexplore: inputs=[torch.randn(64, 256)] init=[256]
    class Block{i}(nn.Module):
        """A small block (number {i})."""

        def __init__(self, features: int):
            super().__init__()
            self.linear = nn.Linear(features, features)
            self.scale = {i}.0

        def forward(self, x):
            y = self.linear(x)
            y = torch.nn.functional.gelu(y) * self.scale
            return torch.softmax(y + x, dim=-1)

''')


def big_document(lines: int) -> str:
    header = "import torch\nimport torch.nn as nn\n\n\n"
    parts, i = [header], 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(CLASS.format(i=i))
        i += 1
    return "".join(parts)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def main_async(args: argparse.Namespace) -> dict:
    work = Path(tempfile.mkdtemp(prefix="adaexplore-lsp-bench-"))
    text = big_document(args.lines)
    path = work / "big.py"
    path.write_text(text)
    uri = path.as_uri()
    client = make_test_lsp_client()
    client.set_configuration({"steps": args.steps, "device": args.device, "cacheDir": str(work / "cache")},
                             section="adaexplore")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    await client.start_io(sys.executable, "-m", "adaexplore_server", env=env)
    pid = client._server.pid
    await client.initialize_session(types.InitializeParams(capabilities=client_capabilities("visual-studio-code"),
                                                           initialization_options={"cacheDir": str(work / "cache")}))
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    await asyncio.sleep(1.0)
    idle_rss = rss_mb(pid)

    classes = [i for i, line in enumerate(text.splitlines()) if line.startswith("class Block")]
    job = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="adaexplore.optimize", arguments=[uri, "Block0"]))
    await asyncio.sleep(args.warmup_s)           # the job is running: its subprocess judges candidates

    doc = types.TextDocumentIdentifier(uri=uri)
    timings: dict[str, list[float]] = {"codeAction": [], "codeLens": [], "hover": []}
    gc.collect()
    gc.disable()            # the measuring client's own collections are not the server's latency
    for n in range(args.requests):
        line = classes[n % len(classes)]
        start = time.perf_counter()
        await client.text_document_code_action_async(types.CodeActionParams(
            text_document=doc, range=types.Range(types.Position(line + 9, 8), types.Position(line + 9, 8)),
            context=types.CodeActionContext(diagnostics=[])))
        timings["codeAction"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))
        timings["codeLens"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(text_document=doc,
                                                                 position=types.Position(line, 8)))
        timings["hover"].append((time.perf_counter() - start) * 1000)
    gc.enable()
    jobs = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="adaexplore.listJobs", arguments=[]))
    running_rss = rss_mb(pid)
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="adaexplore.cancelJob", arguments=[job["id"]]))
    await client.shutdown_session()
    return {
        "document_lines": text.count("\n"), "module_classes": len(classes), "requests_each": args.requests,
        "job_state_during_measurement": [j["state"] for j in jobs if j["id"] == job["id"]],
        "latency_ms": {k: {"p50": round(statistics.median(v), 2), "p90": round(percentile(v, 0.9), 2),
                           "p99": round(percentile(v, 0.99), 2), "max": round(max(v), 2),
                           "over_50ms": sum(1 for x in v if x > 50)} for k, v in timings.items()},
        "server_rss_mb_idle": round(idle_rss, 1), "server_rss_mb_with_document_and_job": round(running_rss, 1),
        "python": sys.version.split()[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--steps", type=int, default=200, help="a long job, so it runs while we measure")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--warmup-s", type=float, default=3.0)
    parser.add_argument("--out")
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
