"""Time from the "Optimize" code action to the first validated result in the code lens, through the real
language server over stdio (pygls's client), on a KernelBench-format module.

    python benchmarks/lsp_first_lens.py MODULE.py [--device cuda] [--steps 20] [--out result.json]

The clock starts when the client sends the optimize command; the lens is polled every 100 ms. "First
validated" is the first lens that carries a measured speedup (GPU) — or, on the CPU, the first lens after a
candidate was validated (no timing there). Also reported: when the search finished and its final lens.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

ROOT = Path(__file__).resolve().parents[1]
POLL_S = 0.1


async def measure(args: argparse.Namespace) -> dict:
    work = Path(tempfile.mkdtemp(prefix="adaexplore-first-lens-"))
    source = Path(args.module).read_text()
    path = work / Path(args.module).name
    path.write_text(source)
    uri = path.as_uri()
    client = make_test_lsp_client()
    client.set_configuration({"steps": args.steps, "device": args.device, "cacheDir": str(work / "cache")},
                             section="adaexplore")
    await client.start_io(sys.executable, "-m", "adaexplore_server", env={**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})
    await client.initialize_session(types.InitializeParams(capabilities=client_capabilities("visual-studio-code"),
                                                           initialization_options={"cacheDir": str(work / "cache")}))
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=source)))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    target = next(lens.command.arguments for lens in lenses if lens.command.command == "adaexplore.optimize")
    started = time.monotonic()
    job = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="adaexplore.optimize", arguments=list(target)))
    first_validated = finished = None
    first_title = final_titles = None
    while finished is None and time.monotonic() - started < args.timeout:
        jobs = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="adaexplore.listJobs", arguments=[]))
        state = next(j for j in jobs if j["id"] == job["id"])
        found = await client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        titles = [lens.command.title for lens in found or []]
        validated = any("best " in t or t.startswith("⚡") for t in titles) or \
            (args.device == "cpu" and state["valid"] > 0)
        if validated and first_validated is None:
            first_validated, first_title = time.monotonic() - started, titles[0]
        if state["state"] not in ("queued", "running"):
            finished, final_titles = time.monotonic() - started, titles
        await asyncio.sleep(POLL_S)
    await client.shutdown_session()
    return {"module": str(args.module), "device": args.device, "steps": args.steps,
            "seconds_to_first_validated_lens": first_validated, "first_validated_lens": first_title,
            "seconds_to_finished": finished, "final_lens": final_titles, "job": state}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=560.0)
    parser.add_argument("--out")
    args = parser.parse_args()
    result = asyncio.run(measure(args))
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0 if result["seconds_to_first_validated_lens"] is not None else 1


if __name__ == "__main__":
    sys.exit(main())
