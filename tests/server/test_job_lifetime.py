"""No process of a search job outlives the job, in each of the six ways a job can end: it finishes, the user
cancels it, the editor shuts the server down, the editor sends ``exit`` without ``shutdown``, the server's
stdin closes (the editor died), or the server is killed (SIGKILL: no code of the server runs).

A real server over stdio (pytest-lsp's client) runs a real search on the CPU; the module's forward is slow on
real tensors and starts a sleeping child process of its own inside the judge's sandboxed worker, so while the
job runs there are: the engine, its judge pool's reaper, a zygote, the candidate's process and that child.
Every one of them carries a marker in its environment (tests/support/processes.py), which no change of
session, process group or parent hides; each must be gone a few seconds after the end.
"""
from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from support.processes import MARKER, marked, survivors, wait_for_descendant, write_slow_module  # noqa: E402

STARTUP_S = 150          # the engine and a zygote import torch and triton; the machine may be busy
JOB_TIMEOUT_S = 240
GONE_S = 5


async def start_server(tmp_path: Path, marker: str) -> LanguageClient:
    client = make_test_lsp_client()
    env = {**os.environ, "PYTHONPATH": str(ROOT), MARKER: marker}
    await client.start_io(sys.executable, "-m", "adaexplore_server", env=env)
    cache = tmp_path / "cache"
    client.set_configuration({"steps": 1, "device": "cpu", "cacheDir": str(cache)}, section="adaexplore")
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), initialization_options={"cacheDir": str(cache)}))
    return client


async def optimize(client: LanguageClient, tmp_path: Path, sleep_s: float) -> str:
    path = write_slow_module(tmp_path, sleep_s)
    text = path.read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="python", version=1, text=text)))
    job = await command(client, "adaexplore.optimize", path.as_uri(), "Slow")
    assert "id" in job, job
    return job["id"]


async def command(client: LanguageClient, name: str, *arguments):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=name, arguments=list(arguments)))


async def job_state(client: LanguageClient, job_id: str) -> dict:
    for _ in range(JOB_TIMEOUT_S * 4):
        job = next(j for j in await command(client, "adaexplore.listJobs") if j["id"] == job_id)
        if job["state"] not in ("queued", "running"):
            return job
        await asyncio.sleep(0.25)
    raise AssertionError(f"{job_id} did not end in {JOB_TIMEOUT_S} s")


async def slow_job_running(client: LanguageClient, tmp_path: Path, marker: str) -> None:
    """Start the slow job and wait until the candidate's own child runs: server -> engine -> zygote ->
    candidate -> child."""
    await optimize(client, tmp_path, sleep_s=600)
    await asyncio.get_running_loop().run_in_executor(
        None, wait_for_descendant, marker, client._server.pid, 4, STARTUP_S)


async def left_behind(marker: str, keep: tuple[int, ...] = ()) -> dict:
    return await asyncio.get_running_loop().run_in_executor(None, survivors, marker, GONE_S, keep)


async def server_gone(client: LanguageClient) -> int:
    return await asyncio.wait_for(client._server.wait(), timeout=30)


def kill_all(marker: str) -> None:
    for pid in marked(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture
def marker():
    value = uuid.uuid4().hex
    yield value
    kill_all(value)                  # whatever a failing test left behind


@pytest.mark.asyncio
async def test_a_finished_job_leaves_no_process(tmp_path, marker):
    client = await start_server(tmp_path, marker)
    job_id = await optimize(client, tmp_path, sleep_s=0)
    finished = await job_state(client, job_id)
    assert finished["state"] == "done", finished["message"]
    assert await left_behind(marker, keep=(client._server.pid,)) == {}
    await client.shutdown_session()
    await client.stop()


@pytest.mark.asyncio
async def test_a_cancelled_job_leaves_no_process(tmp_path, marker):
    client = await start_server(tmp_path, marker)
    await slow_job_running(client, tmp_path, marker)
    job_id = (await command(client, "adaexplore.listJobs"))[0]["id"]
    await command(client, "adaexplore.cancelJob", job_id)
    assert (await job_state(client, job_id))["state"] == "cancelled"
    assert await left_behind(marker, keep=(client._server.pid,)) == {}
    await client.shutdown_session()
    await client.stop()


@pytest.mark.asyncio
async def test_shutdown_leaves_no_process(tmp_path, marker):
    client = await start_server(tmp_path, marker)
    await slow_job_running(client, tmp_path, marker)
    await client.shutdown_async(None)
    assert await left_behind(marker, keep=(client._server.pid,)) == {}
    client.exit(None)
    assert await server_gone(client) == 0
    await client.stop()


@pytest.mark.asyncio
async def test_exit_without_shutdown_leaves_no_process(tmp_path, marker):
    client = await start_server(tmp_path, marker)
    await slow_job_running(client, tmp_path, marker)
    client.exit(None)
    await server_gone(client)
    assert await left_behind(marker) == {}
    await client.stop()


@pytest.mark.asyncio
async def test_closing_the_servers_stdin_leaves_no_process(tmp_path, marker):
    client = await start_server(tmp_path, marker)
    await slow_job_running(client, tmp_path, marker)
    client._server.stdin.close()
    await server_gone(client)
    assert await left_behind(marker) == {}
    await client.stop()


@pytest.mark.asyncio
async def test_killing_the_server_leaves_no_process(tmp_path, marker):
    client = await start_server(tmp_path, marker)
    await slow_job_running(client, tmp_path, marker)
    client._server.send_signal(signal.SIGKILL)
    await server_gone(client)
    assert await left_behind(marker) == {}
    await client.stop()
