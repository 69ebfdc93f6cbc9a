"""How results read in the editor, through a real LSP client over stdio against the real server: an untimed
result is plainly untimed and Apply asks first; a search without a valid candidate says why; Apply keeps one
copy of tuple constants; cached results are right at start-up with non-default settings. The results are
written into the cache by the test (``seeded.py``), as a finished search leaves them."""
from __future__ import annotations

import ast
import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_wire import WireClient, wait_until
from seeded import MODULE, UNTIMED_BEST, seed
from test_lsp_e2e import apply_text_edits, client, edits_of, lenses, open_document, run_command  # noqa: F401

pytestmark = pytest.mark.asyncio


async def inlay_labels(client: LanguageClient, uri: str) -> list[str]:
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(40, 0))))
    return [h.label for h in hints or []]


async def hover_text(client: LanguageClient, uri: str, line: int) -> str:
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, 8)))
    return hover.contents.value if hover else ""


async def test_an_untimed_result_is_plainly_untimed_and_apply_asks_first(client: LanguageClient, tmp_path):
    path = tmp_path / "scale.py"
    seed(client.cache_dir, path.as_uri(), MODULE, "Scale", UNTIMED_BEST)
    uri = open_document(client, path, MODULE)
    shown = await lenses(client, uri)
    assert shown == ["AdaExplore: validated (interpreter), not timed", "Preview", "Apply (untimed)"], shown
    assert not any("⚡" in t for t in shown + await inlay_labels(client, uri))
    assert "validated by the Triton interpreter only" in await hover_text(client, uri, 6)

    client.answer = "Cancel"                                  # the user declines: nothing changes
    declined = await run_command(client, "adaexplore.apply", uri, "Scale")
    assert declined["applied"] is False and "never timed" in declined["reason"], declined
    assert not client.recorder.edits
    question = client.questions[-1]
    assert question.type == types.MessageType.Warning
    assert [a.title for a in question.actions] == ["Apply the untimed version", "Cancel"]
    assert "validated by the Triton interpreter only and never timed" in question.message
    assert "falls back to the original code" in question.message
    assert await lenses(client, uri) == shown                  # the result is still offered

    client.answer = "Apply the untimed version"
    applied = await run_command(client, "adaexplore.apply", uri, "Scale")
    assert applied == {"applied": True, "reference_class": "ScaleReference"}, applied
    assert len(client.questions) == 2


async def test_a_client_that_asked_the_untimed_question_itself_is_not_asked_again(client: LanguageClient, tmp_path):
    """The Apply lens of an untimed result carries the question; a client that showed it (VS Code's modal) says
    so with its exact text and the server applies without asking twice. Any other text is asked again."""
    path = tmp_path / "scale.py"
    seed(client.cache_dir, path.as_uri(), MODULE, "Scale", UNTIMED_BEST)
    uri = open_document(client, path, MODULE)
    found = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    apply_lens = next(lens.command for lens in found if lens.command.title == "Apply (untimed)")
    assert list(apply_lens.arguments[:2]) == [uri, "Scale"], apply_lens.arguments
    question = apply_lens.arguments[2]["confirm"]
    assert "never timed" in question and "Scale" in question, question

    client.answer = "Cancel"                                   # a stale or altered confirmation is asked again
    declined = await run_command(client, "adaexplore.apply", uri, "Scale", {"confirmed": question + " (edited)"})
    assert declined["applied"] is False and len(client.questions) == 1, (declined, client.questions)

    applied = await run_command(client, "adaexplore.apply", uri, "Scale", {"confirmed": question})
    assert applied == {"applied": True, "reference_class": "ScaleReference"}, applied
    assert len(client.questions) == 1                          # not asked a second time


async def test_commands_reject_malformed_arguments_with_a_clear_error(client: LanguageClient, tmp_path):
    uri = open_document(client, tmp_path / "scale.py", MODULE)
    for arguments in ([uri], [uri, "Scale", "not options"], [uri, "Scale", {}, {}]):
        answer = await run_command(client, "adaexplore.apply", *arguments)
        assert "expected the arguments [documentUri, className]" in answer["error"], (arguments, answer)


async def test_apply_keeps_one_copy_of_tuple_constants(client: LanguageClient, tmp_path):
    path = tmp_path / "tuple_constants.py"
    seed(client.cache_dir, path.as_uri(), MODULE, "Scale", UNTIMED_BEST)
    uri = open_document(client, path, MODULE)
    applied = await run_command(client, "adaexplore.apply", uri, "Scale")
    assert applied.get("applied") is True, applied
    new_text = apply_text_edits(MODULE, edits_of(client.recorder.edits[-1], uri))
    ast.parse(new_text)
    assert new_text.count("batch_size, features = 4, 64") == 1, new_text
    assert new_text.count("def get_inputs") == 1 and "def affine_kernel" in new_text


REJECTIONS = [{"reason": "max abs error 0.51 > 1e-4 on the example inputs", "count": 7},
              {"reason": "does not compile: tl.dot needs blocks of at least 16", "count": 5}]


async def test_no_valid_candidate_shows_the_most_common_rejection(client: LanguageClient, tmp_path):
    path = tmp_path / "rejected.py"
    seed(client.cache_dir, path.as_uri(), MODULE, "Scale", None, rejections=REJECTIONS)
    uri = open_document(client, path, MODULE)
    expected = ("AdaExplore: no valid Triton candidate in 12 steps; most common rejection (7 of 12): max abs error "
                "0.51 > 1e-4 on the example inputs")
    diagnostics = await wait_until(lambda: [d.message for d in client.diagnostics.get(uri, [])])
    assert expected in diagnostics, diagnostics
    hover = await hover_text(client, uri, 6)
    assert "most common rejection (7 of 12): max abs error 0.51" in hover
    assert "5×: does not compile" in hover
    assert (await lenses(client, uri))[0].endswith("· Optimize again")
    refused = await run_command(client, "adaexplore.apply", uri, "Scale")
    assert "nothing to apply" in refused["error"]


async def test_closing_a_document_clears_its_diagnostics(client: LanguageClient, tmp_path):
    path = tmp_path / "closed.py"
    seed(client.cache_dir, path.as_uri(), MODULE, "Scale", None, rejections=REJECTIONS)
    uri = open_document(client, path, MODULE)
    assert await wait_until(lambda: client.diagnostics.get(uri))
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri)))
    assert await wait_until(lambda: list(client.diagnostics.get(uri, [None])) == []), client.diagnostics
    await asyncio.sleep(1.0)                                   # no late publish brings them back
    assert list(client.diagnostics[uri]) == []


async def test_a_no_valid_result_of_an_older_cache_has_no_rejections(client: LanguageClient, tmp_path):
    path = tmp_path / "old_entry.py"
    seed(client.cache_dir, path.as_uri(), MODULE, "Scale", None)          # no "rejections" key at all
    uri = open_document(client, path, MODULE)
    diagnostics = await wait_until(lambda: [d.message for d in client.diagnostics.get(uri, [])])
    assert diagnostics == ["AdaExplore: no valid Triton candidate in 12 steps"], diagnostics


async def test_cached_results_are_right_at_start_up_with_non_default_settings(tmp_path):
    """The client answers workspace/configuration slowly (as editors do while they start); requests that came
    before must wait for the settings, not answer with the defaults (another cache folder, device auto)."""
    cache, default_cache = tmp_path / "cache", tmp_path / "default-cache"
    path = tmp_path / "startup.py"
    seed(cache, path.as_uri(), MODULE, "Scale", UNTIMED_BEST, device="cpu")
    path.write_text(MODULE)
    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(default_cache)})

    async def slow_configuration(params):
        await asyncio.sleep(1.0)
        return [{"cacheDir": str(cache), "device": "cpu", "steps": 3}]

    wire.handlers["workspace/configuration"] = slow_configuration
    await wire.start()
    try:
        await wire.initialize(capabilities={"workspace": {"configuration": True, "codeLens": {"refreshSupport": True}},
                                            "window": {"workDoneProgress": True}})
        wire.open(path.as_uri(), MODULE)
        response = await wire.request("textDocument/codeLens", {"textDocument": {"uri": path.as_uri()}})
        titles = [lens["command"]["title"] for lens in response["result"]]
        assert titles == ["AdaExplore: validated (interpreter), not timed", "Preview", "Apply (untimed)"], titles
        published = await wait_until(lambda: [p for p in wire.messages("textDocument/publishDiagnostics")
                                              if p["uri"] == path.as_uri() and p["diagnostics"]])
        assert published and "not timed" in published[-1]["diagnostics"][0]["message"], published
        assert any(r["method"] == "workspace/codeLens/refresh" for r in wire.requests)
    finally:
        await wire.stop()


async def test_apply_of_an_untimed_result_says_so_when_the_editor_cannot_ask(tmp_path):
    """A client without window/showMessageRequest: nothing is applied, and the user is told why (not a quiet
    'declined')."""
    cache = tmp_path / "cache"
    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(cache)})
    wire.handlers["workspace/applyEdit"] = lambda params: {"applied": True}
    await wire.start()
    try:
        await wire.initialize(options={"cacheDir": str(cache), "device": "cpu"})
        path = tmp_path / "scale.py"
        seed(cache, path.as_uri(), MODULE, "Scale", UNTIMED_BEST)
        wire.open(path.as_uri(), MODULE)
        response = await wire.request("workspace/executeCommand", {"command": "adaexplore.apply",
                                                                   "arguments": [path.as_uri(), "Scale"]})
        error = response["result"]["error"]
        assert "never timed" in error and "could not ask" in error, response
        assert [r["method"] for r in wire.requests].count("window/showMessageRequest") == 1
        assert "workspace/applyEdit" not in [r["method"] for r in wire.requests]
        assert any("could not ask" in m["message"] for m in wire.messages("window/showMessage"))
    finally:
        await wire.stop()


async def test_settings_read_last_are_the_settings_asked_for_last(tmp_path):
    """A configuration change while the settings of ``initialized`` are still being asked for: the slow,
    older answer must not replace the newer one (here: which cache folder holds the result)."""
    old_cache, new_cache = tmp_path / "old-cache", tmp_path / "new-cache"
    path = tmp_path / "scale.py"
    seed(new_cache, path.as_uri(), MODULE, "Scale", UNTIMED_BEST)
    asked = []

    async def configuration(params):
        asked.append(params)
        if len(asked) == 1:
            await asyncio.sleep(1.5)                          # the first answer comes last
            return [{"cacheDir": str(old_cache), "device": "cpu"}]
        return [{"cacheDir": str(new_cache), "device": "cpu"}]

    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(old_cache)})
    wire.handlers["workspace/configuration"] = configuration
    await wire.start()
    try:
        await wire.initialize(capabilities={"workspace": {"configuration": True}})
        assert await wait_until(lambda: asked)
        wire.notify("workspace/didChangeConfiguration", {"settings": None})
        assert await wait_until(lambda: len(asked) == 2)
        await asyncio.sleep(2.0)                              # both answers are in
        wire.open(path.as_uri(), MODULE)
        response = await wire.request("textDocument/codeLens", {"textDocument": {"uri": path.as_uri()}})
        titles = [lens["command"]["title"] for lens in response["result"]]
        assert titles[0] == "AdaExplore: validated (interpreter), not timed", titles
    finally:
        await wire.stop()


async def test_a_preview_that_cannot_be_written_says_where_and_why(tmp_path):
    cache = tmp_path / "cache"
    path = tmp_path / "scale.py"
    seed(cache, path.as_uri(), MODULE, "Scale", UNTIMED_BEST)
    (cache / "previews").write_text("a file where the previews folder should be\n")
    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(cache)})
    await wire.start()
    try:
        await wire.initialize(options={"cacheDir": str(cache), "device": "cpu"})
        wire.open(path.as_uri(), MODULE)
        response = await wire.request("workspace/executeCommand", {"command": "adaexplore.preview",
                                                                   "arguments": [path.as_uri(), "Scale"]})
        error = response.get("result", {}).get("error", "")
        assert "cannot write the preview" in error and str(cache / "previews") in error, response
    finally:
        await wire.stop()


async def test_an_unreadable_answer_to_the_apply_question_applies_nothing_and_does_not_hang(tmp_path):
    cache = tmp_path / "cache"
    path = tmp_path / "scale.py"
    seed(cache, path.as_uri(), MODULE, "Scale", UNTIMED_BEST)
    wire = WireClient(env={"ADAEXPLORE_CACHE_DIR": str(cache)})
    wire.handlers["window/showMessageRequest"] = lambda params: {"title": 5}      # not a MessageActionItem
    wire.handlers["workspace/applyEdit"] = lambda params: {"applied": True}
    await wire.start()
    try:
        await wire.initialize(options={"cacheDir": str(cache), "device": "cpu"})
        wire.open(path.as_uri(), MODULE)
        response = await wire.request("workspace/executeCommand", {"command": "adaexplore.apply",
                                                                   "arguments": [path.as_uri(), "Scale"]},
                                      timeout=10)
        assert "could not ask" in response["result"]["error"], response
        assert "workspace/applyEdit" not in [r["method"] for r in wire.requests]
    finally:
        await wire.stop()
