"""The language server end to end, through a real LSP client over stdio (pytest-lsp): code action ->
optimize command -> work-done progress -> code lens / inlay hint / hover / diagnostic -> preview -> apply,
plus cancel, stale results, bad arguments and broken documents. The engine runs for real on the CPU
(Triton interpreter, built-in proposer, a few steps).
"""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Union

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ROOT = Path(__file__).resolve().parents[2]
STEPS = 3
JOB_TIMEOUT_S = 240

MODULE = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    class Scale(nn.Module):
        """x * 2 + 1, then GELU."""

        def __init__(self, features: int):
            super().__init__()
            self.features = features

        def forward(self, x):
            return torch.nn.functional.gelu(x * 2.0 + 1.0)


    def get_inputs():
        return [torch.randn(4, 64)]


    def get_init_inputs():
        return [64]
''')

NO_INPUTS = textwrap.dedent('''\
    import torch
    from torch import nn


    class Plain(nn.Module):
        def forward(self, x):
            return torch.relu(x)
''')


class Recorder:
    """What the server asked the client to do: edits to apply (applied to a local copy of the text)."""

    def __init__(self) -> None:
        self.edits: list[types.ApplyWorkspaceEditParams] = []


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")

    def offset(p: types.Position) -> int:
        return sum(len(line) + 1 for line in lines[:p.line]) + p.character   # ASCII test text: UTF-16 == chars

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def edits_of(params: types.ApplyWorkspaceEditParams, uri: str) -> list[types.TextEdit]:
    edit = params.edit
    if edit.document_changes:
        return [e for change in edit.document_changes if change.text_document.uri == uri for e in change.edits]
    return list((edit.changes or {}).get(uri, []))


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "adaexplore_server"],
                            server_env={**os.environ, "PYTHONPATH": str(ROOT)})


async def start(lsp_client: LanguageClient, cache: Path, capabilities: str) -> None:
    lsp_client.cache_dir = cache
    lsp_client.recorder = Recorder()
    lsp_client.refreshes = []
    keep_code_actions(lsp_client)

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        lsp_client.recorder.edits.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def inlay_refresh(params: None) -> None:
        lsp_client.refreshes.append("inlayHint")

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params: None) -> None:
        lsp_client.refreshes.append("codeLens")

    lsp_client.questions = []
    lsp_client.answer = "Apply the untimed version"      # what the user picks when the server asks

    @lsp_client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def question(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        lsp_client.questions.append(params)
        return next((a for a in params.actions or [] if a.title == lsp_client.answer), None)

    lsp_client.set_configuration({"steps": STEPS, "device": "cpu", "cacheDir": str(cache)}, section="adaexplore")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(capabilities), initialization_options={"cacheDir": str(cache)}))


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    """A client with Neovim 0.11's capabilities (WorkspaceEdit.changes, no code-lens refresh)."""
    await start(lsp_client, tmp_path_factory.mktemp("cache"), "neovim@v0.11.0")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def vscode(lsp_client: LanguageClient, tmp_path_factory):
    """A client with VS Code's capabilities (documentChanges with versions, code-lens refresh)."""
    await start(lsp_client, tmp_path_factory.mktemp("cache"), "visual-studio-code")
    yield
    await lsp_client.shutdown_session()


def keep_code_actions(client: LanguageClient) -> None:
    """lsprotocol's converter turns a CodeAction that carries a command into a Command (the union is tried
    in order): decide by the shape instead — a CodeAction's "command" is an object, a Command's a string."""
    converter = client.protocol._converter

    def structure(obj, _type):
        if isinstance(obj, dict) and isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=version, text=text)))
    return uri


def change_document(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def code_actions(client: LanguageClient, uri: str, line: int) -> list:
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(line, 4), types.Position(line, 4)),
        context=types.CodeActionContext(diagnostics=[])))


def titles(actions: list) -> list[str]:
    return [a.title for a in actions or []]


def command_of(action) -> types.Command:
    assert isinstance(action, types.CodeAction) and isinstance(action.command, types.Command), action
    return action.command


def assert_patched_module_runs(folder: Path, text: str) -> None:
    """Import the patched file in a fresh interpreter (Triton interpreter on the CPU): the new Scale runs
    Triton and matches ScaleReference, with the same state_dict keys."""
    (folder / "patched_module.py").write_text(text)
    check = textwrap.dedent('''\
        import torch, patched_module as m
        new, ref = m.Scale(64), m.ScaleReference(64)
        assert new.state_dict().keys() == ref.state_dict().keys()
        x = torch.randn(4, 64)
        torch.testing.assert_close(new(x), ref(x))
        print("ok")
    ''')
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(folder)}
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


async def run_command(client: LanguageClient, command: str, *arguments):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=command, arguments=list(arguments)))


async def wait_for_job(client: LanguageClient, job_id: str) -> dict:
    for _ in range(JOB_TIMEOUT_S * 4):
        jobs = await run_command(client, "adaexplore.listJobs")
        job = next(j for j in jobs if j["id"] == job_id)
        if job["state"] not in ("queued", "running"):
            return job
        await asyncio.sleep(0.25)
    raise AssertionError(f"{job_id} did not finish in {JOB_TIMEOUT_S} s")


async def lenses(client: LanguageClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    return [lens.command.title for lens in found or []]


@pytest.mark.asyncio
async def test_optimize_progress_lens_hover_preview_apply(client: LanguageClient, tmp_path):
    uri = open_document(client, tmp_path / "scale.py", MODULE)
    assert await lenses(client, uri) == ["Optimize with AdaExplore"]
    actions = await code_actions(client, uri, 12)            # the cursor in forward
    assert "Optimize Scale with AdaExplore" in titles(actions)
    command = command_of(next(a for a in actions if a.title.startswith("Optimize")))
    assert command.command == "adaexplore.optimize" and list(command.arguments) == [uri, "Scale"]

    job = await run_command(client, command.command, *command.arguments)
    assert job["state"] in ("queued", "running") and job["class"] == "Scale", job
    again = await run_command(client, command.command, *command.arguments)
    assert "already being optimized" in again["error"]
    running_lenses = await lenses(client, uri)
    assert len(running_lenses) == 1 and running_lenses[0].startswith("⏳ AdaExplore")

    finished = await wait_for_job(client, job["id"])
    assert finished["state"] == "done" and finished["step"] == STEPS, finished
    await asyncio.sleep(0.2)                                   # the end of the progress, the diagnostics

    reports = next(iter(client.progress_reports.values()))
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert "validated (interpreter), not timed" in reports[-1].message
    assert any(isinstance(r, types.WorkDoneProgressReport) and r.message.startswith(f"step {STEPS}/{STEPS}")
               for r in reports)

    assert await lenses(client, uri) == ["AdaExplore: validated (interpreter), not timed", "Preview",
                                         "Apply (untimed)"]
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(30, 0))))
    assert [h.label for h in hints] == ["valid, untimed"] and hints[0].position == types.Position(4, 11)
    diagnostics = client.diagnostics[uri]
    assert any(d.severity == types.DiagnosticSeverity.Information and "not timed" in d.message
               for d in diagnostics)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(4, 8)))
    assert "AdaExplore" in hover.contents.value and "@triton.jit" in hover.contents.value
    assert "Checks passed" in hover.contents.value

    shown = await run_command(client, "adaexplore.preview", uri, "Scale")
    preview_text = Path(shown["uri"].removeprefix("file://")).read_text()
    assert shown["text"] == preview_text and "class ScaleReference(nn.Module):" in preview_text
    assert client.shown_documents and client.shown_documents[-1].uri == shown["uri"]

    applied = await run_command(client, "adaexplore.apply", uri, "Scale")
    assert applied == {"applied": True, "reference_class": "ScaleReference"}, applied
    params = client.recorder.edits[-1]
    assert params.edit.document_changes is None and list(params.edit.changes) == [uri]   # Neovim: changes
    assert "inlayHint" in client.refreshes and "codeLens" not in client.refreshes
    new_text = apply_text_edits(MODULE, edits_of(params, uri))
    assert new_text == preview_text
    for line in MODULE.splitlines():                            # no line of the user's code is lost
        assert line.replace("class Scale(", "class ScaleReference(") in new_text
    assert new_text.count("import triton\n") == 1 and "class Scale(nn.Module):" in new_text
    assert_patched_module_runs(tmp_path, new_text)

    change_document(client, uri, new_text, 2)
    await asyncio.sleep(0.2)
    after = await lenses(client, uri)
    assert after[0].startswith("Optimize with AdaExplore")      # ScaleReference: a module of its own
    assert any(t.startswith("✓ AdaExplore applied") for t in after), after


@pytest.mark.asyncio
async def test_stale_result_is_never_applied(client: LanguageClient, tmp_path):
    uri = open_document(client, tmp_path / "stale.py", MODULE)
    job = await run_command(client, "adaexplore.optimize", uri, "Scale")
    assert (await wait_for_job(client, job["id"]))["state"] == "done"
    changed = MODULE.replace("x * 2.0 + 1.0", "x * 3.0 + 1.0")
    change_document(client, uri, changed, 2)
    assert await lenses(client, uri) == ["AdaExplore result is stale (the class changed) · Optimize again"]
    refused = await run_command(client, "adaexplore.apply", uri, "Scale")
    assert "stale" in refused["error"]
    assert not client.recorder.edits
    assert any("stale" in m.message for m in client.messages)


@pytest.mark.asyncio
async def test_a_timed_result_slower_than_eager_is_not_offered(client: LanguageClient, tmp_path):
    """A kernel that validated but ran slower than eager PyTorch: the lens says no faster kernel was found and
    offers Preview and another search, not Apply; the inlay hint and the diagnostic say it too."""
    from adaexplore_server.cache import ResultCache
    uri = open_document(client, tmp_path / "slow.py", MODULE)
    job = await run_command(client, "adaexplore.optimize", uri, "Scale")
    assert (await wait_for_job(client, job["id"]))["state"] == "done"
    cache = ResultCache(client.cache_dir)            # as if the search had run on a GPU and found 0.80x
    key, result = cache.latest(uri, "Scale")
    result["best"].update(timed=True, speedup_vs_eager=0.8, speedup_vs_compile=0.7, env={"gpu": "NVIDIA H200"})
    cache.put(key, uri, "Scale", result)
    cache.close()
    expected = ["AdaExplore: no faster kernel found (best 0.80x vs eager · 0.70x vs torch.compile · validated on "
                "NVIDIA H200)", "Preview", "Optimize again"]
    for _ in range(50):                              # the server notices the write (checked every 100 ms)
        if await lenses(client, uri) == expected:
            break
        await asyncio.sleep(0.1)
    assert await lenses(client, uri) == expected
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(30, 0))))
    assert [h.label for h in hints] == ["0.80x (not faster)"]
    change_document(client, uri, MODULE + "\n", 2)   # publish the diagnostics again
    for _ in range(50):
        if any("no faster kernel found" in d.message for d in client.diagnostics.get(uri, [])):
            break
        await asyncio.sleep(0.1)
    assert any("no faster kernel found" in d.message for d in client.diagnostics[uri])


@pytest.mark.asyncio
async def test_cancel_ends_the_job(client: LanguageClient, tmp_path):
    uri = open_document(client, tmp_path / "cancel.py", MODULE)
    job = await run_command(client, "adaexplore.optimize", uri, "Scale")
    cancelled = await run_command(client, "adaexplore.cancelJob", job["id"])
    assert cancelled["id"] == job["id"]
    assert (await wait_for_job(client, job["id"]))["state"] == "cancelled"
    assert await lenses(client, uri) == ["Optimize with AdaExplore"]


@pytest.mark.asyncio
async def test_missing_inputs_get_a_stub_action(client: LanguageClient, tmp_path):
    uri = open_document(client, tmp_path / "plain.py", NO_INPUTS)
    actions = await code_actions(client, uri, 5)
    assert titles(actions) == ["Add example inputs for AdaExplore"]
    edit = actions[0].edit.changes[uri][0]
    assert edit.range.start == types.Position(4, 0) and "# adaexplore: inputs=" in edit.new_text
    refused = await run_command(client, "adaexplore.optimize", uri, "Plain")
    assert "no example inputs" in refused["error"]


@pytest.mark.asyncio
async def test_bad_arguments_and_broken_documents(client: LanguageClient, tmp_path):
    for args in ([], ["only-one"], [1, 2], [None, "X"]):
        result = await run_command(client, "adaexplore.optimize", *args)
        assert "expected the arguments" in result["error"], (args, result)
    result = await run_command(client, "adaexplore.optimize", "file:///nowhere.py", "X")
    assert "is not open" in result["error"]
    result = await run_command(client, "adaexplore.cancelJob", "job-999999")
    assert "no job" in result["error"]

    broken = MODULE.replace("return torch.nn.functional.gelu(x * 2.0 + 1.0)", "return torch.nn.functional.gelu(")
    uri = open_document(client, tmp_path / "broken.py", broken)
    assert await lenses(client, uri) in ([], ["Optimize with AdaExplore"])   # tolerant, never an error
    result = await run_command(client, "adaexplore.optimize", uri, "Scale")
    assert "error" in result and ("syntax error" in result["error"] or "no nn.Module" in result["error"])

    annotated = textwrap.dedent('''\
        import torch
        from torch import nn


        # adaexplore: inputs=torch.randn(3)
        class Bad(nn.Module):
            def forward(self, x):
                return x * 2
    ''')
    uri = open_document(client, tmp_path / "annotated.py", annotated)
    await asyncio.sleep(0.3)
    warnings = [d for d in client.diagnostics.get(uri, []) if d.severity == types.DiagnosticSeverity.Warning]
    assert warnings and "must be a list" in warnings[0].message and warnings[0].range.start.line == 4
    result = await run_command(client, "adaexplore.optimize", uri, "Bad")
    assert "must be a list" in result["error"]

    # the server is still healthy
    assert isinstance(await run_command(client, "adaexplore.listJobs"), list)
    assert json.dumps(await lenses(client, uri))


@pytest.mark.asyncio
async def test_apply_uses_versioned_document_changes_when_supported(vscode: LanguageClient, tmp_path):
    uri = open_document(vscode, tmp_path / "scale.py", MODULE, version=7)
    job = await run_command(vscode, "adaexplore.optimize", uri, "Scale")
    assert (await wait_for_job(vscode, job["id"]))["state"] == "done"
    await asyncio.sleep(0.2)
    assert "codeLens" in vscode.refreshes
    applied = await run_command(vscode, "adaexplore.apply", uri, "Scale")
    assert applied.get("applied") is True, applied
    change = vscode.recorder.edits[-1].edit.document_changes[0]
    assert change.text_document.uri == uri and change.text_document.version == 7
    assert "class ScaleReference(nn.Module):" in apply_text_edits(MODULE, list(change.edits))


TWO_MODULES = MODULE.replace("class Scale(nn.Module):", "class Other(nn.Module):\n    def forward(self, x):\n"
                             "        return torch.relu(x) + 1.0\n\n\nclass Scale(nn.Module):")


@pytest.mark.asyncio
async def test_one_search_per_device_and_cancel_from_the_progress(client: LanguageClient, tmp_path):
    uri = open_document(client, tmp_path / "two.py", TWO_MODULES)
    first = await run_command(client, "adaexplore.optimize", uri, "Scale")
    second = await run_command(client, "adaexplore.optimize", uri, "Other")
    jobs = {j["id"]: j for j in await run_command(client, "adaexplore.listJobs")}
    assert jobs[second["id"]]["state"] == "queued", jobs          # the cpu device is taken by the first
    assert "⏳ AdaExplore: queued · Cancel" in await lenses(client, uri)
    # the user presses cancel on the second job's progress notification
    tokens = [t for t in client.progress_reports if second["id"] in str(t)]
    assert tokens, client.progress_reports
    begin = client.progress_reports[tokens[0]][0]
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.message.startswith("waiting for cpu")
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=tokens[0]))
    await asyncio.sleep(0.3)
    jobs = {j["id"]: j for j in await run_command(client, "adaexplore.listJobs")}
    assert jobs[second["id"]]["state"] == "cancelled", jobs                # at once, not when the cpu frees up
    assert jobs[first["id"]]["state"] == "running", jobs
    assert (await wait_for_job(client, second["id"]))["state"] == "cancelled"
    assert (await wait_for_job(client, first["id"]))["state"] == "done"
    await asyncio.sleep(0.2)
    assert isinstance(client.progress_reports[tokens[0]][-1], types.WorkDoneProgressEnd)
    assert "cancelled" in client.progress_reports[tokens[0]][-1].message


LLM_SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "adaexplore_server"],
                                server_env={**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-editor"})


@pytest_lsp.fixture(config=LLM_SERVER)
async def llm_client(lsp_client: LanguageClient, tmp_path_factory):
    await start(lsp_client, tmp_path_factory.mktemp("cache"), "visual-studio-code")
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_llm_proposer_from_the_editor_settings(llm_client: LanguageClient, tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from support.fake_openai import FakeOpenAI, reply

    uri = open_document(llm_client, tmp_path / "scale.py", MODULE)
    cache = tmp_path / "cache"
    llm_client.set_configuration({"steps": 3, "device": "cpu", "cacheDir": str(cache), "proposer": "llm"},
                                 section="adaexplore")
    llm_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.5)
    refused = await run_command(llm_client, "adaexplore.optimize", uri, "Scale")
    assert "needs a model" in refused["error"]

    with FakeOpenAI(default=lambda body: reply("I have no kernel for you.")) as fake:
        llm_client.set_configuration({"steps": 3, "device": "cpu", "cacheDir": str(cache), "proposer": "llm",
                                      "model": "fake-coder", "baseUrl": fake.base_url}, section="adaexplore")
        llm_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await asyncio.sleep(0.5)
        job = await run_command(llm_client, "adaexplore.optimize", uri, "Scale")
        finished = await wait_for_job(llm_client, job["id"])
        assert finished["state"] == "done", finished                   # the built-in seeds are valid
        assert fake.requests and fake.requests[0]["model"] == "fake-coder"
        assert {k.lower(): v for k, v in fake.headers[0].items()}["authorization"] == "Bearer sk-editor"
    assert (cache / "rules").is_dir()


@pytest.mark.asyncio
async def test_an_unsaved_untitled_document_can_be_optimized(client: LanguageClient):
    """VS Code's untitled buffers have no file: the engine gets a snapshot of the text."""
    uri = "untitled:Untitled-1"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=MODULE)))
    job = await run_command(client, "adaexplore.optimize", uri, "Scale")
    assert "error" not in job, job
    assert (await wait_for_job(client, job["id"]))["state"] == "done"
    assert (await lenses(client, uri))[0] == "AdaExplore: validated (interpreter), not timed"
    applied = await run_command(client, "adaexplore.apply", uri, "Scale")
    assert applied.get("applied") is True, applied
    assert list(client.recorder.edits[-1].edit.changes) == [uri]


TRAINABLE = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    class Head(nn.Module):
        """A linear layer, a learned shift and GELU."""

        def __init__(self, features: int, out: int):
            super().__init__()
            self.linear = nn.Linear(features, out)
            self.shift = nn.Parameter(torch.zeros(out))

        def forward(self, x):
            return torch.nn.functional.gelu(self.linear(x) + self.shift)


    def get_inputs():
        return [torch.randn(8, 32)]


    def get_init_inputs():
        return [32, 16]
''')

TRAIN_THREE_STEPS = textwrap.dedent('''\
    import torch, patched_head as m

    def losses(cls):
        torch.manual_seed(0)
        model = cls(32, 16)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        torch.manual_seed(1)
        data = [(torch.randn(8, 32), torch.randn(8, 16)) for _ in range(3)]
        out = []
        for x, y in data:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            out.append(loss.item())
        return out, model

    steps = []
    triton_forward = m.Head._triton_forward
    m.Head._triton_forward = lambda self, *a: steps.append(1) or triton_forward(self, *a)
    patched, new = losses(m.Head)
    m.Head._triton_forward = triton_forward
    original, old = losses(m.HeadReference)
    assert steps == [1, 1, 1], steps              # training calls take the Triton path (its backward kernels)
    torch.testing.assert_close(torch.tensor(patched), torch.tensor(original), rtol=1e-6, atol=1e-7)
    assert all(p.grad is not None for p in new.parameters())
    for p, q in zip(new.parameters(), old.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-6, atol=1e-7)    # float32 rounding apart, the same weights
    calls = []
    triton_forward = new._triton_forward
    new._triton_forward = lambda *a: calls.append(1) or triton_forward(*a)
    with torch.no_grad():
        x = torch.randn(5, 32)                    # another batch size: the Triton path, the same result
        torch.testing.assert_close(new(x), old(x))
    assert calls == [1], calls
    print("ok", patched)
''')


@pytest.mark.asyncio
async def test_apply_then_train_three_steps_like_the_original(client: LanguageClient, tmp_path):
    """After Apply, the user's training loop learns as before: 3 SGD steps with the same seeds give the same
    losses and weights as the original class, float32 rounding apart (training calls take the Triton path and
    its backward kernels), and an
    inference call of another batch size takes the Triton path and matches. The patch states its envelope."""
    uri = open_document(client, tmp_path / "head.py", TRAINABLE)
    job = await run_command(client, "adaexplore.optimize", uri, "Head")
    finished = await wait_for_job(client, job["id"])
    assert finished["state"] == "done", finished
    applied = await run_command(client, "adaexplore.apply", uri, "Head")
    assert applied == {"applied": True, "reference_class": "HeadReference"}, applied
    new_text = apply_text_edits(TRAINABLE, edits_of(client.recorder.edits[-1], uri))
    assert "# Triton path: cpu float32 inputs (B, 32), train and eval, autograd through Triton backward kernels; " \
           "every other call runs the original forward." in new_text
    (tmp_path / "patched_head.py").write_text(new_text)
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", TRAIN_THREE_STEPS], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("ok"), done.stderr[-3000:]
