"""The AdaExplore language server (pygls 2): code actions, background search jobs with work-done progress,
results as code lens / inlay hint / diagnostic / hover, and Preview / Apply of a validated result.

Every handler follows one recipe: get the document, ask the analysis (tree-sitter) and the status of its
classes (result cache, jobs), present (``presenters.py``), return. Searches run in subprocesses
(``job_service.py`` over ``jobs.py``). The server never imports torch.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import sys
import threading
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from adaexplore_core import __version__

from . import analysis, edits, presenters
from .analysis import ModuleClass, Position
from .cache import CacheProblem, GuardedCache
from .documents import (MAX_ANALYSED_CHARS, MAX_ANALYSED_LINES, Document, DocumentError, Documents, canonical_uri,
                        clean_text, read_unopened)
from .job_service import JobService, UserError, result_key
from .presenters import (CMD_APPLY, CMD_CANCEL, CMD_CLEAR_CACHE, CMD_JOBS, CMD_OPTIMIZE, CMD_PREVIEW, CMD_SHOW,
                         headline)
from .protocol import HardenedProtocol, read_stdio, strict_converter
from .settings import Settings, read_settings
from .states import ModuleStatus, ResultState, job_state, result_state

NAME, VERSION = "adaexplore", __version__
PUBLISH_DELAY_S = 0.25
SETTINGS_WAIT_S = 10.0
log = logging.getLogger(__name__)


class RequestFailed(JsonRpcException):
    """A request that cannot be answered (its document cannot be read): the client gets the message."""

    CODE = -32803


class ClosingWriter(StdoutWriter):
    """The protocol's stdout; after ``exit`` closed it, what jobs still report is dropped (not an error)."""

    closed = False

    def close(self) -> None:
        self.closed = True
        super().close()

    def write(self, data: bytes) -> None:
        if not self.closed:
            super().write(data)


class AdaExploreServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(NAME, VERSION, protocol_cls=HardenedProtocol, converter_factory=strict_converter)
        self.settings = Settings()
        self.init_options: Any = None
        self.documents = Documents()
        self.jobs = JobService(self)
        self.settings_loaded = asyncio.Event()
        self._settings_reads = 0
        self._cache: GuardedCache | None = None
        self._cache_settings: Settings | None = None
        self._publish_handles: dict[str, asyncio.TimerHandle] = {}

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls's stdio server, with the hardened reader of ``protocol.py``."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(ClosingWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(read_stdio(self.protocol, stdin or sys.stdin.buffer, self._stop_event))
        except BrokenPipeError:
            log.error("the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's default shows every out-of-band error to the user; a request the client cancelled (Neovim
        cancels a pending code-lens request when it asks again) that then finishes is not one."""
        if is_cancelled_request_race(error):
            return
        super().report_server_error(error, source)

    # messages
    def show(self, kind: types.MessageType, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def log(self, message: str) -> None:
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=message))

    def client_supports(self, dotted: str) -> bool:
        caps: Any = self.client_capabilities
        for part in dotted.split("."):
            caps = getattr(caps, part, None)
            if caps is None:
                return False
        return bool(caps)

    # settings, cache
    @property
    def cache(self) -> GuardedCache:
        if self._cache is None or self._cache_settings is not self.settings:     # new settings: maybe a new folder
            path = self.settings.cache_path()
            if self._cache is None or self._cache.base != path:
                if self._cache is not None:
                    self._cache.close()
                self._cache = GuardedCache(path, self.cache_failed)
            self._cache_settings = self.settings
        return self._cache

    def cache_failed(self, problem: CacheProblem) -> None:
        """Said once per cache folder; a corrupt folder that holds only the cache's files can be cleared."""
        if not problem.clearable:
            self.show(types.MessageType.Warning, problem.message())
            return
        asyncio.ensure_future(self._offer_clear(problem))

    async def _offer_clear(self, problem: CacheProblem) -> None:
        action = "Clear the cache folder"
        try:
            answer = await self.window_show_message_request_async(types.ShowMessageRequestParams(
                type=types.MessageType.Warning, message=problem.message(),
                actions=[types.MessageActionItem(title=action), types.MessageActionItem(title="Not now")]))
        except Exception:  # noqa: BLE001 - a client that cannot ask: the message is still shown
            self.show(types.MessageType.Warning, problem.message())
            return
        if answer is not None and answer.title == action:
            try:
                await clear_cache(self)
            except UserError as e:                          # not a command: nobody else would show it
                self.show(types.MessageType.Error, f"AdaExplore: {e}")

    async def load_settings(self) -> None:
        """Read the settings; when a newer read starts meanwhile (a change during ``initialized``), its answer
        stands, not this one's."""
        self._settings_reads += 1
        this_read = self._settings_reads
        data = self.init_options.get("adaexplore", self.init_options) if isinstance(self.init_options, dict) \
            else None
        if self.client_supports("workspace.configuration"):
            try:
                items = await asyncio.wait_for(self.workspace_configuration_async(types.ConfigurationParams(
                    items=[types.ConfigurationItem(section="adaexplore")])), timeout=SETTINGS_WAIT_S)
                if items and isinstance(items[0], dict):
                    data = {**(data or {}), **items[0]}
            except Exception:  # noqa: BLE001 - a client without configuration: initializationOptions stand
                pass
        if this_read != self._settings_reads:
            return
        self.settings, problems = read_settings(data)
        self.settings_loaded.set()
        for problem in problems:
            self.show(types.MessageType.Warning, problem)

    async def ready(self) -> None:
        """Wait until the settings are read (results depend on them); a client that never sends
        ``initialized`` gets answers with the defaults after SETTINGS_WAIT_S."""
        if not self.settings_loaded.is_set():
            try:
                await asyncio.wait_for(self.settings_loaded.wait(), timeout=SETTINGS_WAIT_S)
            except asyncio.TimeoutError:
                self.settings_loaded.set()

    def encoding(self) -> str:
        kind = str(self.workspace.position_encoding or "utf-16")
        return {"utf-8": "utf-8", "utf-32": "utf-32"}.get(kind, "utf-16")

    # documents and their classes
    def document(self, uri: str) -> Document:
        """The document of a request: the open one, else a regular file of limited size (RequestFailed)."""
        if self.documents.is_open(uri):
            client_uri = self.documents.client_uri(uri)
            doc = self.workspace.get_text_document(client_uri)
            return Document(client_uri, canonical_uri(uri), clean_text(doc.source), doc.version)
        try:
            return Document(uri, canonical_uri(uri), read_unopened(uri), None)
        except DocumentError as e:
            raise RequestFailed(str(e), RequestFailed.CODE) from e

    def open_document(self, uri: str) -> Document:
        """The document of a command: it must be open in the editor."""
        if not self.documents.is_open(uri):
            raise UserError(f"the document {uri} is not open")
        return self.document(uri)

    def modules(self, doc: Document) -> tuple[ModuleClass, ...]:
        return () if doc.too_large else analysis.find_modules(doc.text, self.encoding())

    def module_named(self, doc: Document, class_name: str) -> ModuleClass | None:
        return next((m for m in self.modules(doc) if m.name == class_name), None)

    def status(self, doc: Document, module: ModuleClass) -> ModuleStatus:
        job = self.jobs.running_for(doc.key, module.name)
        if job is not None:
            return ModuleStatus(job_state(job), job=job)
        result = self.cache.get(result_key(doc.text, module, self.settings))
        if result is not None:
            return ModuleStatus(result_state(result), result)
        latest = self.cache.latest(doc.key, module.name)
        if latest is None:
            return ModuleStatus(ResultState.NO_RESULT)
        result = latest[1]
        if result.get("applied_digest") == module.digest():
            return ModuleStatus(ResultState.APPLIED, result)
        return ModuleStatus(ResultState.STALE, result, stale_reason=self.stale_reason(doc, module, result))

    def stale_reason(self, doc: Document, module: ModuleClass, result: dict[str, Any]) -> str:
        if result.get("digest") != module.digest():
            return "the class changed"
        if result.get("inputs") != analysis.inputs_text(doc.text, module):
            return "its example inputs changed"
        return "the environment or settings changed (torch, triton, device or proposer)"

    # diagnostics and refreshes
    def publish_soon(self, uri: str) -> None:
        """Publish diagnostics after PUBLISH_DELAY_S without another change (one analysis per pause)."""
        key = canonical_uri(uri)
        pending = self._publish_handles.pop(key, None)
        if pending is not None:
            pending.cancel()
        self._publish_handles[key] = asyncio.get_running_loop().call_later(PUBLISH_DELAY_S, self.publish, key)

    def publish(self, uri: str) -> None:
        """Diagnostics: results (Information), annotation errors (Warning), a file too large to analyse."""
        if not self.documents.is_open(uri):
            return
        doc = self.document(uri)
        found = [presenters.too_large_diagnostic(len(doc.text), doc.text.count("\n") + 1, MAX_ANALYSED_CHARS,
                                                 MAX_ANALYSED_LINES)] if doc.too_large else []
        for module in self.modules(doc):
            found += [presenters.inputs_warning(doc.text, module),
                      presenters.diagnostic(module, self.status(doc, module))]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=doc.uri, diagnostics=[d for d in found if d is not None], version=doc.version))

    def clear_diagnostics(self, uri: str) -> None:
        """A closed document keeps no diagnostics (they describe its editor text), and none comes late."""
        pending = self._publish_handles.pop(canonical_uri(uri), None)
        if pending is not None:
            pending.cancel()
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def refresh(self, uri: str) -> None:
        """New diagnostics for ``uri``, and new code lenses and inlay hints where the client can refresh them."""
        self.publish(uri)
        await self.refresh_views()

    async def refresh_all(self) -> None:
        for uri in list(self.documents.opened):
            self.publish(uri)
        await self.refresh_views()

    async def refresh_views(self) -> None:
        for capability, call in (("workspace.code_lens.refresh_support", self.workspace_code_lens_refresh_async),
                                 ("workspace.inlay_hint.refresh_support", self.workspace_inlay_hint_refresh_async)):
            if self.client_supports(capability):
                try:
                    await asyncio.wait_for(call(None), timeout=5)
                except Exception:  # noqa: BLE001 - a refresh the client did not answer
                    pass


_INVALID_STATE = (concurrent.futures.InvalidStateError, asyncio.InvalidStateError)


def is_cancelled_request_race(error: Exception) -> bool:
    """The error pygls meets when it sets the result of a request whose future the client's $/cancelRequest
    already cancelled: an InvalidStateError, raw or wrapped by ``JsonRpcInternalError.of`` (which starts its
    message with the exception's qualified type name)."""
    if isinstance(error, _INVALID_STATE):
        return True
    names = tuple(f"{t.__module__}.{t.__qualname__}:" for t in _INVALID_STATE)
    return isinstance(error, JsonRpcInternalError) and str(error.message).startswith(names)


def _position(p: types.Position) -> Position:
    return Position(p.line, p.character)


# lifecycle and documents
def initialize(ls: AdaExploreServer, params: types.InitializeParams) -> None:
    ls.init_options = params.initialization_options


async def initialized(ls: AdaExploreServer, params: types.InitializedParams) -> None:
    """Read the settings, then show what the cache holds for documents opened meanwhile."""
    await ls.load_settings()
    await ls.refresh_all()


async def configuration_changed(ls: AdaExploreServer, params: types.DidChangeConfigurationParams) -> None:
    await ls.load_settings()
    await ls.refresh_all()


async def did_open(ls: AdaExploreServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.documents.did_open(params.text_document.uri)
    await ls.ready()
    ls.publish(params.text_document.uri)


def did_change(ls: AdaExploreServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.publish_soon(params.text_document.uri)       # typing: diagnostics once the keys rest


async def did_save(ls: AdaExploreServer, params: types.DidSaveTextDocumentParams) -> None:
    await ls.ready()
    ls.publish(params.text_document.uri)


def did_close(ls: AdaExploreServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.documents.did_close(params.text_document.uri)
    ls.clear_diagnostics(params.text_document.uri)


async def shutdown(ls: AdaExploreServer, params: None) -> None:
    await ls.jobs.manager.shutdown()


# requests: get the document, ask the analysis, present, return
async def code_lens(ls: AdaExploreServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    await ls.ready()
    doc = ls.document(params.text_document.uri)
    return [lens for module in ls.modules(doc)
            for lens in presenters.code_lenses(doc.uri, module, ls.status(doc, module))]


async def inlay_hint(ls: AdaExploreServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    await ls.ready()
    doc = ls.document(params.text_document.uri)
    hints = [presenters.inlay_hint(module, ls.status(doc, module)) for module in ls.modules(doc)]
    return [h for h in hints if h is not None]


async def hover(ls: AdaExploreServer, params: types.HoverParams) -> types.Hover | None:
    await ls.ready()
    doc = ls.document(params.text_document.uri)
    at = params.position
    for module in ls.modules(doc):
        r = module.name_range
        if r.start.line == at.line and r.start.character <= at.character <= r.end.character:
            return presenters.hover(module, ls.status(doc, module))
    return None


async def code_action(ls: AdaExploreServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    await ls.ready()
    doc = ls.document(params.text_document.uri)
    at = _position(params.range.start)
    module = next((m for m in ls.modules(doc) if m.contains(at)), None)
    if module is None:
        return []
    return presenters.code_actions(doc.uri, module, ls.status(doc, module))


# commands: [documentUri, className] (or [jobId]); a UserError becomes the command's {"error": ...}
def safely(fn):
    async def wrapper(ls: AdaExploreServer, *args: Any) -> Any:
        try:
            return await fn(ls, *args)
        except UserError as e:
            ls.show(types.MessageType.Error, f"AdaExplore: {e}")
            return {"error": str(e)}
    wrapper.__name__ = fn.__name__
    return wrapper


def target(args: tuple[Any, ...]) -> tuple[str, str]:
    """The [documentUri, className] of a command, also given as one {"uri", "class"} object; a trailing
    options object (see ``options``) is allowed."""
    if len(args) == 3 and isinstance(args[2], dict):
        args = args[:2]
    if len(args) == 1 and isinstance(args[0], dict):
        args = (args[0].get("uri"), args[0].get("class"))
    if len(args) != 2 or not all(isinstance(a, str) and a for a in args):
        raise UserError("expected the arguments [documentUri, className] (and an optional options object)")
    return args[0], args[1]


def options(args: tuple[Any, ...]) -> dict[str, Any]:
    """The options object after [documentUri, className]: {"confirm": question} in an Apply lens of an untimed
    result (a client that asks the user itself shows it), {"confirmed": question} from a client that did."""
    return args[2] if len(args) == 3 and isinstance(args[2], dict) else {}


async def optimize(ls: AdaExploreServer, *args: Any) -> Any:
    uri, class_name = target(args)
    await ls.ready()
    summary = await ls.jobs.start(ls.open_document(uri), class_name)
    await ls.refresh(uri)
    return summary


async def cancel(ls: AdaExploreServer, *args: Any) -> Any:
    if len(args) != 1 or not isinstance(args[0], str):
        raise UserError("expected the argument [jobId]")
    return ls.jobs.cancel(args[0])


async def list_jobs(ls: AdaExploreServer, *args: Any) -> Any:
    return ls.jobs.summaries()


async def preview(ls: AdaExploreServer, *args: Any) -> Any:
    uri, class_name = target(args)
    await ls.ready()
    return await edits.preview(ls, ls.open_document(uri), class_name)


async def apply(ls: AdaExploreServer, *args: Any) -> Any:
    uri, class_name = target(args)
    await ls.ready()
    confirmed = options(args).get("confirmed")
    applied = await edits.apply(ls, ls.open_document(uri), class_name,
                                confirmed=confirmed if isinstance(confirmed, str) else "")
    await ls.refresh(uri)
    return applied


async def show_result(ls: AdaExploreServer, *args: Any) -> Any:
    uri, class_name = target(args)
    await ls.ready()
    doc = ls.open_document(uri)
    module = ls.module_named(doc, class_name)
    if module is None:
        raise UserError(f"no nn.Module class {class_name!r} in the document")
    status = ls.status(doc, module)
    if status.result is None:
        raise UserError(f"no AdaExplore result for {class_name} yet")
    ls.show(types.MessageType.Info, presenters.result_text(class_name, headline(status.result)))
    return {"state": status.state.value, "headline": headline(status.result), "best": status.result.get("best")}


async def clear_cache(ls: AdaExploreServer, *args: Any) -> Any:
    cache = ls.cache
    if cache.problem is None:
        return {"cleared": False, "reason": "the cache works; nothing to clear"}
    if not cache.clear():
        raise UserError(f"the cache folder {cache.base} cannot be cleared by AdaExplore: move or clear it yourself")
    ls.show(types.MessageType.Info, presenters.cache_cleared_text(cache.base))
    await ls.refresh_all()
    return {"cleared": True}


FEATURES = [
    (types.INITIALIZE, initialize, None),
    (types.INITIALIZED, initialized, None),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, configuration_changed, None),
    (types.TEXT_DOCUMENT_DID_OPEN, did_open, None),
    (types.TEXT_DOCUMENT_DID_CHANGE, did_change, None),
    (types.TEXT_DOCUMENT_DID_SAVE, did_save, None),
    (types.TEXT_DOCUMENT_DID_CLOSE, did_close, None),
    (types.SHUTDOWN, shutdown, None),
    (types.TEXT_DOCUMENT_CODE_LENS, code_lens, None),
    (types.TEXT_DOCUMENT_INLAY_HINT, inlay_hint, None),
    (types.TEXT_DOCUMENT_HOVER, hover, None),
    (types.TEXT_DOCUMENT_CODE_ACTION, code_action, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.RefactorRewrite, types.CodeActionKind.QuickFix])),
]
COMMANDS = [(CMD_OPTIMIZE, optimize), (CMD_CANCEL, cancel), (CMD_JOBS, list_jobs), (CMD_PREVIEW, preview),
            (CMD_APPLY, apply), (CMD_SHOW, show_result), (CMD_CLEAR_CACHE, clear_cache)]


def create_server() -> AdaExploreServer:
    server = AdaExploreServer()
    for method, handler, options in FEATURES:
        server.feature(method, options)(handler) if options is not None else server.feature(method)(handler)
    for name, handler in COMMANDS:
        server.command(name)(safely(handler))
    return server

