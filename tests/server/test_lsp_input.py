"""Input the server must survive, through real clients over stdio against the real server: URIs spelled
several ways, a cache folder it cannot use, documents it has not opened, and a fuzz of broken framing,
wrong-typed params, early requests and odd documents, after each of which a normal request is answered
within 100 ms."""
from __future__ import annotations

import asyncio
import os
import sqlite3
import time

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_wire import WireClient, frame, wait_until
from seeded import MODULE, UNTIMED_BEST, seed
from test_lsp_e2e import SERVER, client, lenses, open_document, run_command, start  # noqa: F401

pytestmark = pytest.mark.asyncio
NORMAL_REPLY_S = 0.1


async def test_uris_with_spaces_non_ascii_and_drive_letters(client: LanguageClient, tmp_path):
    folder = tmp_path / "My Project"
    folder.mkdir()
    path = folder / "modèle.py"
    uri = open_document(client, path, MODULE)                   # file:///.../My%20Project/mod%C3%A8le.py
    assert "%20" in uri and "%C3%A8" in uri
    assert (await run_command(client, "adaexplore.showResult", uri, "Scale"))["error"] == \
        "no AdaExplore result for Scale yet"
    job = await run_command(client, "adaexplore.optimize", uri, "Scale")
    assert "error" not in job, job
    assert (await run_command(client, "adaexplore.cancelJob", job["id"]))["id"] == job["id"]

    drive = "file:///c%3A/Users/My%20Project/model.py"         # VS Code's spelling of C:\Users\My Project
    seed(client.cache_dir, drive, MODULE, "Scale", UNTIMED_BEST)
    await asyncio.sleep(0.2)                                    # the server notices the write (every 100 ms)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=drive, language_id="python", version=1, text=MODULE)))
    for spelling in (drive, "file:///C:/Users/My Project/model.py", "file:///c:/Users/My%20Project/model.py"):
        assert (await lenses(client, spelling))[0] == "AdaExplore: validated (interpreter), not timed", spelling
        shown = await run_command(client, "adaexplore.showResult", spelling, "Scale")
        assert shown.get("state") == "untimed", (spelling, shown)
    client.answer = "Apply the untimed version"
    applied = await run_command(client, "adaexplore.apply", "file:///C:/Users/My Project/model.py", "Scale")
    assert applied.get("applied") is True, applied
    assert list(client.recorder.edits[-1].edit.changes) == [drive]     # edits name the document as opened


@pytest_lsp.fixture(config=SERVER)
async def file_as_cache(lsp_client: LanguageClient, tmp_path_factory):
    """adaexplore.cacheDir names a regular file: no folder can be made there (unwritable for any user)."""
    cache = tmp_path_factory.mktemp("blocked") / "not-a-folder"
    cache.write_text("a file where the cache folder should be\n")
    await start(lsp_client, cache, "neovim@v0.11.0")
    yield
    await lsp_client.shutdown_session()


async def test_an_unusable_cache_folder_is_reported_once_and_the_server_works(file_as_cache: LanguageClient,
                                                                            tmp_path):
    client = file_as_cache
    uri = open_document(client, tmp_path / "scale.py", MODULE)
    for _ in range(3):
        assert await lenses(client, uri) == ["Optimize with AdaExplore"]
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(6, 8))) is None
    await wait_until(lambda: client.messages)
    about_cache = [m.message for m in client.messages if str(client.cache_dir) in m.message]
    assert len(about_cache) == 1, client.messages
    assert "cannot be used" in about_cache[0] and "Move it away or clear it" in about_cache[0]


@pytest_lsp.fixture(config=SERVER)
async def corrupt_cache(lsp_client: LanguageClient, tmp_path_factory):
    cache = tmp_path_factory.mktemp("corrupt")
    (cache / "results").mkdir()
    (cache / "results" / "cache.db").write_bytes(b"this is not an SQLite database" * 100)
    await start(lsp_client, cache, "neovim@v0.11.0")
    lsp_client.answer = "Clear the cache folder"
    yield
    await lsp_client.shutdown_session()


async def test_a_corrupt_cache_is_offered_for_clearing(corrupt_cache: LanguageClient, tmp_path):
    client = corrupt_cache
    uri = open_document(client, tmp_path / "scale.py", MODULE)
    assert await lenses(client, uri) == ["Optimize with AdaExplore"]
    await wait_until(lambda: any("cleared" in m.message for m in client.messages))
    assert len(client.questions) == 1, client.questions
    assert str(client.cache_dir) in client.questions[0].message
    assert [a.title for a in client.questions[0].actions] == ["Clear the cache folder", "Not now"]
    assert any("cleared the result cache" in m.message for m in client.messages), client.messages
    seed(client.cache_dir, uri, MODULE, "Scale", UNTIMED_BEST)          # the cache works again
    for _ in range(30):                                      # the server notices the write (every 100 ms)
        shown = await lenses(client, uri)
        if shown[0].startswith("AdaExplore: validated"):
            break
        await asyncio.sleep(0.1)
    assert shown[0] == "AdaExplore: validated (interpreter), not timed", shown
    with sqlite3.connect(client.cache_dir / "results" / "cache.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def request_error(coroutine) -> str:
    try:
        await asyncio.wait_for(coroutine, timeout=5)
    except JsonRpcException as e:
        return str(e)
    raise AssertionError("the request succeeded")


async def test_unopened_documents_are_read_only_from_small_regular_files(client: LanguageClient, tmp_path):
    big = tmp_path / "big.py"
    with open(big, "wb") as f:
        f.truncate(5 * 1024 * 1024)
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    small = tmp_path / "small.py"
    small.write_text(MODULE)

    def lens(uri: str):
        return client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))

    assert "larger than 4 MB" in await request_error(lens(big.as_uri()))
    assert "not a regular file" in await request_error(lens(fifo.as_uri()))
    assert "not a regular file" in await request_error(lens(tmp_path.as_uri()))
    assert "not a regular file" in await request_error(lens("file:///dev/zero"))
    assert "not open" in await request_error(lens("untitled:Nowhere"))
    assert [lens.command.title for lens in await lens(small.as_uri())] == ["Optimize with AdaExplore"]


def code_lens_request(uri: object) -> dict:
    return {"textDocument": {"uri": uri}}


WRONG_PARAMS = [
    ("textDocument/codeLens", None), ("textDocument/codeLens", 5), ("textDocument/codeLens", []),
    ("textDocument/codeLens", {}), ("textDocument/codeLens", {"textDocument": 5}),
    ("textDocument/codeLens", {"textDocument": {"uri": 5}}), ("textDocument/codeLens", {"textDocument": None}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}, "position": "start"}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}, "position": {"line": "x", "character": 0}}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}, "position": {"line": [], "character": 0}}),
    ("textDocument/hover", {"textDocument": {"uri": "file:///a.py"}, "position": {"line": True, "character": 0}}),
    ("textDocument/inlayHint", {"textDocument": {"uri": "file:///a.py"}}),
    ("textDocument/inlayHint", {"textDocument": {"uri": "file:///a.py"}, "range": 3}),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///a.py"}, "range": None, "context": {}}),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///a.py"},
                                 "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                                 "context": {"diagnostics": 7}}),
    ("workspace/executeCommand", {"command": 5}), ("workspace/executeCommand", {"arguments": []}),
    ("workspace/executeCommand", {"command": "adaexplore.listJobs", "arguments": "x"}),
    ("workspace/executeCommand", "adaexplore.listJobs"),
]
FRAMING = [
    b"Content-Length: 9223372036854775808\r\n\r\n",
    b"Content-Length: 99999999999999999999999\r\n\r\n{}",
    b"Content-Length: 500\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": 99, \"meth",
    b"hello, this is not a header\r\n\r\n",
    b"Foo: bar\r\n\r\n{}",
    b"Content-Length: -5\r\n\r\n",
    b"Content-Length: abc\r\n\r\n",
    frame(b"{not json"), frame(b"[1, 2, 3]"), frame(b"42"), frame(b"\xff\xfe\x00"),
    frame({"jsonrpc": "2.0", "id": 77, "method": 5}), frame({"jsonrpc": "1.0", "id": 78, "method": "x"}),
    b"\x00" * 10000,
]


async def assert_answers_promptly(wire: WireClient, uri: str, case: object, tries: int = 5) -> None:
    """Every answer is right, and the fastest of a few is within NORMAL_REPLY_S: a loaded machine delays some
    round trips (scheduler, this test's own loop), a server stuck on the input delays them all."""
    fastest = float("inf")
    for _ in range(tries):
        response, took = await wire.timed_request("textDocument/codeLens", code_lens_request(uri), timeout=10)
        assert [lens["command"]["title"] for lens in response["result"]] == ["Optimize with AdaExplore"], \
            (case, response)
        fastest = min(fastest, took)
        if fastest <= NORMAL_REPLY_S:
            return
    assert fastest <= NORMAL_REPLY_S, (case, fastest)


async def test_fuzz_leaves_the_server_answering(tmp_path):
    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(tmp_path / "cache")})
    await wire.start()
    try:
        early = await wire.request("textDocument/codeLens", code_lens_request("file:///a.py"))
        assert early["error"]["code"] == -32002, early
        wire.notify("textDocument/didOpen", 5)                        # ignored before initialize
        assert "result" in await wire.initialize(options={"cacheDir": str(tmp_path / "cache")})
        small = tmp_path / "small.py"
        small.write_text(MODULE)
        normal = small.as_uri()
        wire.open(normal, MODULE)
        await assert_answers_promptly(wire, normal, "start")

        for method, params in WRONG_PARAMS:
            response = await wire.request(method, params, timeout=5)
            assert response.get("error", {}).get("code") == -32602, (method, params, response)
            await assert_answers_promptly(wire, normal, (method, params))

        for data in FRAMING:
            wire.write(data)
            await assert_answers_promptly(wire, normal, data[:60])
        answered = await wire.request("workspace/executeCommand", {"command": "adaexplore.listJobs"})
        assert answered["result"] == [], answered

        unknown = await wire.request("adaexplore/noSuchMethod", {})
        assert unknown["error"]["code"] == -32601, unknown

        surrogate = MODULE.replace('"""x * 2 + 1, then GELU."""', '"""lone \ud800 surrogate"""')
        wire.open("file:///surrogate.py", surrogate)
        titles = await wire.request("textDocument/codeLens", code_lens_request("file:///surrogate.py"))
        assert [lens["command"]["title"] for lens in titles["result"]] == ["Optimize with AdaExplore"], titles
        hover = await wire.request("textDocument/hover", {"textDocument": {"uri": "file:///surrogate.py"},
                                                          "position": {"line": 6, "character": 8}})
        assert "result" in hover, hover
        await assert_answers_promptly(wire, normal, "surrogate")

        for name, huge in (("huge.py", MODULE + "\n" + "x = 1  # padding\n" * (10 * 1024 * 1024 // 17)),
                           ("many_lines.py", MODULE + "x = 1\n" * 60_000)):
            start = time.perf_counter()
            wire.open(f"file:///{name}", huge)
            on_huge = await wire.request("textDocument/codeLens", code_lens_request(f"file:///{name}"), timeout=10)
            assert on_huge["result"] == [] and time.perf_counter() - start < 3.0, on_huge
            notes = await wait_until(lambda: [p for p in wire.messages("textDocument/publishDiagnostics")
                                              if p["uri"] == f"file:///{name}"])
            assert "not offered for optimization" in notes[-1]["diagnostics"][0]["message"], notes
            await assert_answers_promptly(wire, normal, name)

        fifo = tmp_path / "pipe.py"
        os.mkfifo(fifo)
        for special in ("file:///dev/zero", fifo.as_uri(), tmp_path.as_uri(), "file:///proc/self/mem"):
            refused = await wire.request("textDocument/codeLens", code_lens_request(special), timeout=5)
            assert refused["error"]["code"] == -32803 and "not" in refused["error"]["message"], (special, refused)
            await assert_answers_promptly(wire, normal, special)
        assert wire.process.returncode is None
    finally:
        await wire.stop()


async def test_wrong_typed_settings_get_a_message_and_their_defaults(tmp_path):
    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(tmp_path / "cache")})
    wire.handlers["workspace/configuration"] = lambda params: [{"steps": "many", "device": 5, "proposer": "gpt",
                                                                "cacheDir": ["not", "a", "path"], "model": "m"}]
    await wire.start()
    try:
        await wire.initialize(capabilities={"workspace": {"configuration": True}})
        warnings = await wait_until(lambda: len(wire.messages("window/showMessage")) >= 4 and
                                    [m["message"] for m in wire.messages("window/showMessage")])
        assert "adaexplore.steps must be a whole number from 1 to 10000, not 'many' (the default 20 is used)" \
            in warnings
        assert "adaexplore.device must be auto, cpu, cuda or cuda:N, not 5 (the default 'auto' is used)" in warnings
        assert any(w.startswith("adaexplore.proposer must be one of: builtin, llm, not 'gpt'") for w in warnings)
        assert any(w.startswith("adaexplore.cacheDir must be a string") for w in warnings)
        small = tmp_path / "small.py"
        small.write_text(MODULE)
        wire.open(small.as_uri(), MODULE)
        await assert_answers_promptly(wire, small.as_uri(), "settings")
    finally:
        await wire.stop()


async def test_a_file_name_with_a_percent_sign_gets_diagnostics_after_a_change(tmp_path):
    """``a%41.py`` is ``file:///.../a%2541.py``: the key of its document must not decode a second time
    (to ``aA.py``, a document that is not open) when the diagnostics of a change are published."""
    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(tmp_path / "cache")})
    await wire.start()
    try:
        await wire.initialize(options={"cacheDir": str(tmp_path / "cache")})
        uri = (tmp_path / "a%41.py").as_uri()
        assert uri.endswith("/a%2541.py")
        wire.open(uri, MODULE)
        assert await wait_until(lambda: [p for p in wire.messages("textDocument/publishDiagnostics")
                                         if p["uri"] == uri])
        wire.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                               "contentChanges": [{"text": MODULE + "\n"}]})
        published = await wait_until(lambda: [p for p in wire.messages("textDocument/publishDiagnostics")
                                              if p["uri"] == uri and p.get("version") == 2])
        assert published, wire.messages("textDocument/publishDiagnostics")
    finally:
        await wire.stop()


async def test_a_clear_that_the_server_may_no_longer_do_is_reported(tmp_path):
    """The user answers "Clear" after another file appeared in the cache's folder: the folder is kept, and
    the user is told so (the answer does not vanish in a background task)."""
    cache = tmp_path / "cache"
    (cache / "results").mkdir(parents=True)
    (cache / "results" / "cache.db").write_bytes(b"this is not an SQLite database" * 100)

    def answer(params):
        (cache / "results" / "notes.txt").write_text("not the cache's\n")
        return {"title": "Clear the cache folder"}

    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(cache)})
    wire.handlers["window/showMessageRequest"] = answer
    await wire.start()
    try:
        await wire.initialize(options={"cacheDir": str(cache)})
        small = tmp_path / "small.py"
        small.write_text(MODULE)
        wire.open(small.as_uri(), MODULE)
        errors = await wait_until(lambda: [m["message"] for m in wire.messages("window/showMessage")
                                           if "cannot be cleared" in m["message"]])
        assert errors and str(cache) in errors[0], wire.messages("window/showMessage")
        assert (cache / "results" / "notes.txt").exists() and (cache / "results" / "cache.db").exists()
    finally:
        await wire.stop()
