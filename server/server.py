"""The AdaExplore language server (pygls 2): code actions, background search jobs with work-done progress,
results as code lens / inlay hint / diagnostic / hover, and Preview / Apply of a validated result.

Handlers only read documents and the result cache (tree-sitter and SQLite: milliseconds); searches run in
subprocesses (``jobs.py``). The server never imports torch.
"""
from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.metadata
import os
import shutil
import sys
import uuid
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from adaexplore_core import envelope_text
from adaexplore_core.jsonstore import default_cache_dir
from adaexplore_core.search.explore import headline as report_headline
from lsprotocol import types
from pygls.lsp.server import LanguageServer

from . import analysis, patch
from .analysis import ModuleClass, Position
from .cache import ResultCache, content_key, private_directory
from .jobs import CANCELLED, FAILED, RUNNING, Job, JobManager, read_result

NAME, VERSION = "adaexplore", "0.1.0"
SOURCE = "AdaExplore"
CMD_OPTIMIZE, CMD_CANCEL, CMD_JOBS = "adaexplore.optimize", "adaexplore.cancelJob", "adaexplore.listJobs"
CMD_PREVIEW, CMD_APPLY, CMD_SHOW = "adaexplore.preview", "adaexplore.apply", "adaexplore.showResult"
PROPOSERS = ("builtin", "llm")
MAX_STEPS = 10_000
PUBLISH_DELAY_S = 0.25


@dataclass
class Settings:
    """Section ``adaexplore`` of workspace/configuration (fallback: initializationOptions, same keys)."""

    proposer: str = "builtin"
    steps: int = 20
    device: str = "auto"
    model: str = ""
    baseUrl: str = ""
    cacheDir: str = ""

    @classmethod
    def from_dict(cls, data: Any) -> tuple["Settings", list[str]]:
        """Settings from client data, and a message for each value that was refused (its default is kept)."""
        settings, problems = cls(), []
        if not isinstance(data, dict):
            return settings, ([] if data is None else ["adaexplore settings must be an object"])
        for f in fields(cls):
            if f.name not in data or data[f.name] is None:
                continue
            value = data[f.name]
            if f.name == "steps":
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_STEPS:
                    problems.append(f"adaexplore.steps must be a whole number from 1 to {MAX_STEPS}, not {value!r}")
                    continue
            elif not isinstance(value, str):
                problems.append(f"adaexplore.{f.name} must be a string, not {value!r}")
                continue
            elif f.name == "proposer" and value not in PROPOSERS:
                problems.append(f"adaexplore.proposer {value!r} is not available here (use: {', '.join(PROPOSERS)})")
                continue
            elif f.name == "device" and not _valid_device(value):
                problems.append(f"adaexplore.device must be auto, cpu, cuda or cuda:N, not {value!r}")
                continue
            setattr(settings, f.name, value)
        return settings, problems

    def cache_path(self) -> Path:
        return Path(self.cacheDir).expanduser() if self.cacheDir else default_cache_dir()


def _valid_device(value: str) -> bool:
    v = value.strip().lower()
    return v in ("auto", "cpu", "cuda") or (v.startswith("cuda:") and v[5:].isdigit())


def uri_to_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def environment_fingerprint(settings: Settings, python: str = sys.executable) -> str:
    """What a result depends on beyond the code: interpreter, torch and triton versions, device, proposer
    (versions from package metadata: nothing is imported)."""
    return "|".join([python, *_package_versions(python), settings.device, settings.proposer])


@functools.lru_cache(maxsize=4)
def _package_versions(python: str) -> tuple[str, str]:
    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "missing"
    return version("torch"), version("triton")


class AdaExploreServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(NAME, VERSION)
        self.settings = Settings()
        self.init_options: Any = None
        self.jobs = JobManager(self.on_job_event)
        self._cache: ResultCache | None = None
        self._cache_dir: tuple[str, str | None] | None = None   # the settings the open cache was made for
        self.settings_loaded = asyncio.Event()
        self._publish_handles: dict[str, asyncio.TimerHandle] = {}

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's default shows every out-of-band error to the user; a request the client cancelled (Neovim
        cancels a pending code-lens request when it asks again) that then finishes is not one."""
        if "CANCELLED" in str(error) and "state=cancelled" in str(error):
            return
        super().report_server_error(error, source)

    # settings, cache
    @property
    def cache(self) -> ResultCache:
        wanted = (self.settings.cacheDir, os.environ.get("ADAEXPLORE_CACHE_DIR"))
        if self._cache is None or self._cache_dir != wanted:
            if self._cache is not None:
                self._cache.close()
            self._cache, self._cache_dir = ResultCache(self.settings.cache_path()), wanted
        return self._cache

    async def load_settings(self) -> None:
        data = self.init_options.get("adaexplore", self.init_options) if isinstance(self.init_options, dict) \
            else None
        if _client_supports(self, "workspace.configuration"):
            try:
                items = await asyncio.wait_for(self.workspace_configuration_async(types.ConfigurationParams(
                    items=[types.ConfigurationItem(section="adaexplore")])), timeout=10)
                if items and isinstance(items[0], dict):
                    data = {**(data or {}), **items[0]}
            except Exception:  # noqa: BLE001 - a client without configuration: initializationOptions stand
                pass
        self.settings, problems = Settings.from_dict(data)
        self.settings_loaded.set()
        for problem in problems:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=problem))

    def encoding(self) -> str:
        kind = str(self.workspace.position_encoding or "utf-16")
        return {"utf-8": "utf-8", "utf-32": "utf-32"}.get(kind, "utf-16")

    # documents
    def text_of(self, uri: str) -> tuple[str, int | None]:
        doc = self.workspace.get_text_document(uri)
        return doc.source, doc.version

    def module_named(self, text: str, class_name: str) -> ModuleClass | None:
        return next((m for m in analysis.find_modules(text, self.encoding()) if m.name == class_name), None)

    def key_for(self, text: str, module: ModuleClass) -> str:
        return content_key(module.source, analysis.inputs_text(text, module),
                           environment_fingerprint(self.settings))

    def stale_reason(self, text: str, module: ModuleClass, result: dict[str, Any]) -> str:
        if result.get("digest") != module.digest():
            return "the class changed"
        if result.get("inputs") != analysis.inputs_text(text, module):
            return "its example inputs changed"
        return "the environment or settings changed (torch, triton, device or proposer)"

    def result_for(self, uri: str, text: str, module: ModuleClass) -> tuple[dict[str, Any] | None, str]:
        """(result, state): "fresh" (this exact class text and inputs), "applied" (the class is the result
        the user applied), "stale" (computed for an older text), or "" (none)."""
        key = self.key_for(text, module)
        result = self.cache.get(key)
        if result is not None:
            return result, "fresh"
        latest = self.cache.latest(uri, module.name)
        if latest is None:
            return None, ""
        result = latest[1]
        if result.get("applied_digest") == module.digest():
            return result, "applied"
        return result, "stale"

    def publish_soon(self, uri: str) -> None:
        """Publish diagnostics after PUBLISH_DELAY_S without another change (one analysis per pause)."""
        pending = self._publish_handles.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._publish_handles[uri] = asyncio.get_running_loop().call_later(PUBLISH_DELAY_S, self.publish, uri)

    def publish(self, uri: str) -> None:
        """Diagnostics: results (Information), annotation errors (Warning)."""
        try:
            text, version = self.text_of(uri)
        except Exception:  # noqa: BLE001 - the document is gone
            return
        diagnostics = []
        for module in analysis.find_modules(text, self.encoding()):
            inputs = module.inputs
            if inputs is not None and inputs.error:
                line = inputs.line
                diagnostics.append(types.Diagnostic(
                    range=types.Range(types.Position(line, 0), types.Position(line, len(text.split("\n")[line]))),
                    message=f"AdaExplore: {inputs.error}", severity=types.DiagnosticSeverity.Warning,
                    source=SOURCE))
            result, state = self.result_for(uri, text, module)
            if result is None or not result.get("best"):
                continue
            fresh = f"AdaExplore: no faster kernel found (best validated: {headline(result)})" \
                if is_slower(result) else f"AdaExplore: {headline(result)} (Preview / Apply in the code lens)"
            message = {"fresh": fresh,
                       "applied": f"AdaExplore: applied ({headline(result)})",
                       "stale": f"AdaExplore: the result is stale ({self.stale_reason(text, module, result)} "
                                "since the search); run Optimize again"}[state]
            diagnostics.append(types.Diagnostic(range=_lsp_range(module.name_range), message=message,
                                                severity=types.DiagnosticSeverity.Information, source=SOURCE))
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics,
                                                                              version=version))

    # jobs
    async def start_job(self, uri: str, class_name: str) -> dict[str, Any]:
        try:                                       # a command right after start-up waits for the settings
            await asyncio.wait_for(self.settings_loaded.wait(), timeout=15)
        except asyncio.TimeoutError:
            pass
        text, version = self.text_of(uri)
        module = self.module_named(text, class_name)
        if module is None:
            raise UserError(f"no nn.Module class {class_name!r} in {uri}")
        if module.inputs is None:
            raise UserError(f"{class_name} has no example inputs: use the code action 'Add example inputs for "
                            f"AdaExplore' (or define get_inputs() and get_init_inputs() in the file)")
        if module.inputs.error:
            raise UserError(f"{class_name}'s annotation: {module.inputs.error}")
        error = analysis.syntax_error(text)
        if error:
            raise UserError(f"the file has a syntax error ({error}); fix it before optimizing")
        if self.settings.proposer == "llm" and not self.settings.model:
            raise UserError("the LLM proposer needs a model: set adaexplore.model (and adaexplore.baseUrl for a "
                            "local server); the key comes from OPENAI_API_KEY in the server's environment")
        running = self.jobs.running_for(uri, class_name)
        if running is not None:
            raise UserError(f"{class_name} is already being optimized ({running.id}, {running.state})")
        key = self.key_for(text, module)
        workdir = private_directory(self.settings.cache_path() / "jobs" / f"{uuid.uuid4().hex[:12]}")
        path = uri_to_path(uri)
        reference = workdir / (path.name if path is not None and path.suffix == ".py" else "module.py")
        reference.write_text(analysis.engine_source(text, module), encoding="utf-8")
        cwd = path.parent if path is not None and path.parent.is_dir() else workdir
        job = Job(uri=uri, class_name=class_name, digest=module.digest(), version=version, content_key=key,
                  device=self.settings.device, steps=self.settings.steps, proposer=self.settings.proposer,
                  model=self.settings.model, base_url=self.settings.baseUrl,
                  cache_dir=str(self.settings.cache_path()),
                  workdir=workdir, inputs_text=analysis.inputs_text(text, module),
                  fingerprint=environment_fingerprint(self.settings))
        job.progress_token = f"adaexplore-{job.id}-{uuid.uuid4().hex[:6]}"
        self.jobs.jobs[job.id] = job                # taken before the first await: a second click is refused
        await self.begin_progress(job)
        self.jobs.start(job, reference, cwd)
        return job.summary()

    async def begin_progress(self, job: Job) -> None:
        token = job.progress_token
        opted_out = isinstance(self.init_options, dict) and self.init_options.get("workDoneProgress") is False
        if opted_out or not _client_supports(self, "window.work_done_progress"):
            job.progress_token = None              # e.g. the VS Code extension shows its own cancellable progress
            return
        try:
            await asyncio.wait_for(self.work_done_progress.create_async(token), timeout=10)
        except Exception:  # noqa: BLE001 - the client refused: no progress, the job still runs
            job.progress_token = None
            return
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=f"AdaExplore: {job.class_name}", cancellable=True, percentage=0,
            message=f"waiting for {job.device} (another search runs there)" if self.jobs.busy(job.device)
            else "starting"))
        future = self.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f, job_id=job.id: f.cancelled() and self.jobs.cancel(job_id))

    async def on_job_event(self, job: Job, event: dict[str, Any] | None) -> None:
        token = job.progress_token
        if event is not None:
            if token and event["event"] in ("candidate_judged", "best_improved", "job_started"):
                self.work_done_progress.report(token, types.WorkDoneProgressReport(
                    message=job.status_line(), percentage=min(100, int(100 * job.step / max(job.steps, 1))),
                    cancellable=True))
            if event["event"] == "error" and not event["fatal"]:
                self.window_log_message(types.LogMessageParams(type=types.MessageType.Info,
                                                               message=f"{job.id}: {event['message']}"))
            return
        if job.state == RUNNING:
            if token:
                self.work_done_progress.report(token, types.WorkDoneProgressReport(message="running", percentage=0))
            return
        message = await self.finish_job(job)
        if token:
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    async def finish_job(self, job: Job) -> str:
        if job.state == CANCELLED:
            shutil.rmtree(job.workdir, ignore_errors=True)
            return f"{job.class_name}: cancelled"
        if job.state == FAILED:
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error, message=f"AdaExplore could not optimize {job.class_name}: {job.message} "
                                                      f"(files kept in {job.workdir})"))
            return f"{job.class_name}: failed"
        result = read_result(job)
        shutil.rmtree(job.workdir, ignore_errors=True)     # the result is cached; the run folder is not needed
        if result is None or not result.get("best"):
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"AdaExplore found no valid Triton candidate for {job.class_name} in {job.steps} steps"))
            return f"{job.class_name}: no valid candidate"
        result.update(inputs=job.inputs_text, fingerprint=job.fingerprint)
        self.cache.put(job.content_key, job.uri, job.class_name, result)
        await self.refresh(job.uri)
        return f"{job.class_name}: {headline(result)}"

    async def refresh(self, uri: str) -> None:
        self.publish(uri)
        for capability, call in (("workspace.code_lens.refresh_support", self.workspace_code_lens_refresh_async),
                                 ("workspace.inlay_hint.refresh_support", self.workspace_inlay_hint_refresh_async)):
            if _client_supports(self, capability):
                try:
                    await asyncio.wait_for(call(None), timeout=5)
                except Exception:  # noqa: BLE001 - a refresh the client did not answer
                    pass

    # preview / apply
    def patched(self, uri: str, class_name: str) -> tuple[str, ModuleClass, dict[str, Any], list[patch.TextEdit],
                                                          int | None]:
        text, version = self.text_of(uri)
        module = self.module_named(text, class_name)
        if module is None:
            raise UserError(f"no nn.Module class {class_name!r} in the document any more")
        result, state = self.result_for(uri, text, module)
        if result is None or not result.get("best_source"):
            raise UserError(f"no AdaExplore result for {class_name}: run Optimize first")
        if state == "stale":
            raise UserError(f"the result for {class_name} is stale ({self.stale_reason(text, module, result)} "
                            "since the search) and is not applied. Run Optimize again")
        if state == "applied":
            raise UserError(f"the AdaExplore result is already applied to {class_name}")
        try:
            edits = patch.build_edits(text, module, result["best_source"], self.encoding())
        except patch.PatchError as e:
            raise UserError(f"cannot apply the result: {e}") from e
        return text, module, result, edits, version

    def preview(self, uri: str, class_name: str) -> dict[str, Any]:
        text, _, _, edits, _ = self.patched(uri, class_name)
        new_text = patch.apply_edits(text, edits, self.encoding())
        path = uri_to_path(uri)
        folder = private_directory(self.settings.cache_path() / "previews")
        digest = hashlib.sha256(uri.encode()).hexdigest()[:8]
        preview = folder / f"{(path.stem if path else 'module')}.{class_name}.{digest}.adaexplore-preview.py"
        preview.write_text(new_text, encoding="utf-8")
        return {"uri": preview.as_uri(), "text": new_text}

    async def apply(self, uri: str, class_name: str) -> dict[str, Any]:
        text, module, result, edits, version = self.patched(uri, class_name)
        lsp_edits = [types.TextEdit(range=types.Range(_lsp_position(e.start), _lsp_position(e.end)),
                                    new_text=e.text) for e in edits]
        if _client_supports(self, "workspace.workspace_edit.document_changes") and version is not None:
            edit = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=lsp_edits)])
        else:
            edit = types.WorkspaceEdit(changes={uri: lsp_edits})
        response = await self.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
            edit=edit, label=f"AdaExplore: apply the Triton version of {class_name}"))
        if not response.applied:
            raise UserError(f"the editor did not apply the edit ({response.failure_reason or 'no reason given'})")
        new_text = patch.apply_edits(text, edits, self.encoding())
        applied = self.module_named(new_text, class_name)
        if applied is not None:
            result = {**result, "applied_digest": applied.digest()}
            self.cache.put(self.key_for(text, module), uri, class_name, result)
        return {"applied": True, "reference_class": patch.reference_name(
            class_name, analysis.top_level_names(text))}


class UserError(Exception):
    """Shown to the user as is."""


def headline(result: dict[str, Any]) -> str:
    """'2.41x vs eager · 1.30x vs torch.compile · validated on NVIDIA H200' for a cached result."""
    return report_headline(result.get("best"), separator=" · ")


def is_slower(result: dict[str, Any]) -> bool:
    """The best validated kernel was timed and is not faster than eager PyTorch beyond the noise (its speedup's
    interval reaches 1 or below): nothing worth applying."""
    best = result.get("best") or {}
    if not best.get("timed"):
        return False
    low = (best.get("timing") or {}).get("speedup_vs_eager_low")
    return (low if low is not None else best.get("speedup_vs_eager") or 0.0) <= 1.0


def _client_supports(ls: LanguageServer, dotted: str) -> bool:
    caps: Any = ls.client_capabilities
    for part in dotted.split("."):
        caps = getattr(caps, part, None)
        if caps is None:
            return False
    return bool(caps)


def _lsp_position(p: Position) -> types.Position:
    return types.Position(line=p.line, character=p.character)


def _lsp_range(r: analysis.Range) -> types.Range:
    return types.Range(start=_lsp_position(r.start), end=_lsp_position(r.end))


def hover_markdown(result: dict[str, Any], state: str, module: ModuleClass, stale_reason: str = "") -> str:
    best = result.get("best") or {}
    lines = [f"**AdaExplore** — {module.name}: {headline(result)}"]
    if state == "stale":
        lines.append(f"\n*Stale: {stale_reason} since this search. Run Optimize again.*")
    elif state == "applied":
        lines.append("\n*Applied: this class is the Triton version.*")
    timing = best.get("timing")
    if timing:
        lines.append("\n| | time | IQR |\n|---|---|---|")
        lines.append(f"| candidate | {timing['candidate_ms']:.4f} ms | {timing['candidate_iqr_ms']:.4f} |")
        lines.append(f"| eager | {timing['eager_ms']:.4f} ms | {timing['eager_iqr_ms']:.4f} |")
        if timing.get("compile_ms") is not None:
            lines.append(f"| torch.compile | {timing['compile_ms']:.4f} ms | {timing['compile_iqr_ms']:.4f} |")
    checks = best.get("checks") or []
    if checks:
        passed = sum(1 for c in checks if c.get("passed"))
        lines.append(f"\nChecks passed: {passed}/{len(checks)} ("
                     + ", ".join(c["name"] for c in checks if c.get("passed")) + ")")
    envelope = envelope_text.validated(best.get("envelope"))
    if envelope:
        lines.append("\n**Validated envelope**\n\n" + "\n".join(f"- {line}" for line in envelope))
    compatible = best.get("checkpoint_compatible")
    if compatible is not None:
        lines.append(f"\nCheckpoint-compatible (same state_dict keys): {'yes' if compatible else 'no'}")
    if timing and timing.get("roofline_fraction") is not None:
        lines.append(f"\nRoofline (lower bound): {timing['roofline_fraction']:.0%} of the {timing['roofline_bound']} "
                     f"limit ({timing['peak_gbps']:.0f} GB/s, {timing['peak_tflops']:.1f} fp32 TFLOP/s measured)")
    elif timing:
        lines.append("\nRoofline: not measured for this result.")
    lines.append(f"\n{result.get('steps')} candidates judged, {result.get('valid')} valid; "
                 f"{best.get('description', '')}")
    source = result.get("best_source", "")
    if source:
        lines.append("\n```python\n" + source.strip() + "\n```")
    return "\n".join(lines)


def create_server() -> AdaExploreServer:
    server = AdaExploreServer()

    def safely(fn):
        """Run a command; a UserError becomes an error message (and the command's error), never a crash."""
        async def wrapper(ls: AdaExploreServer, *args: Any) -> Any:
            try:
                return await fn(ls, *args)
            except UserError as e:
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                               message=f"AdaExplore: {e}"))
                return {"error": str(e)}
        wrapper.__name__ = fn.__name__
        return wrapper

    def target(args: tuple[Any, ...]) -> tuple[str, str]:
        if len(args) == 1 and isinstance(args[0], dict):
            args = (args[0].get("uri"), args[0].get("class"))
        if len(args) != 2 or not all(isinstance(a, str) and a for a in args):
            raise UserError("expected the arguments [documentUri, className]")
        return args[0], args[1]

    def known(ls: AdaExploreServer, uri: str) -> None:
        if uri not in ls.workspace.text_documents:
            raise UserError(f"the document {uri} is not open")

    def for_class(fn):
        """A command on [documentUri, className] of an open document: ``fn(ls, uri, class_name)``."""
        async def wrapper(ls: AdaExploreServer, *args: Any) -> Any:
            uri, class_name = target(args)
            known(ls, uri)
            return await fn(ls, uri, class_name)
        wrapper.__name__ = fn.__name__
        return wrapper

    @server.feature(types.INITIALIZE)
    def initialize(ls: AdaExploreServer, params: types.InitializeParams) -> None:
        ls.init_options = params.initialization_options

    @server.feature(types.INITIALIZED)
    async def initialized(ls: AdaExploreServer, params: types.InitializedParams) -> None:
        await ls.load_settings()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(ls: AdaExploreServer, params: types.DidChangeConfigurationParams) -> None:
        await ls.load_settings()
        for uri in list(ls.workspace.text_documents):
            await ls.refresh(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AdaExploreServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: AdaExploreServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish_soon(params.text_document.uri)       # typing: diagnostics once the keys rest

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: AdaExploreServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.RefactorRewrite, types.CodeActionKind.QuickFix]))
    def code_action(ls: AdaExploreServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        text, _ = ls.text_of(uri)
        at = Position(params.range.start.line, params.range.start.character)
        module = analysis.module_at(text, at, ls.encoding())
        if module is None:
            return []
        actions = []
        args = [uri, module.name]
        if module.inputs is None:
            where, stub = analysis.inputs_stub(module)
            edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(
                range=types.Range(_lsp_position(where), _lsp_position(where)), new_text=stub)]})
            actions.append(types.CodeAction(title="Add example inputs for AdaExplore",
                                            kind=types.CodeActionKind.QuickFix, edit=edit))
        else:
            running = ls.jobs.running_for(uri, module.name)
            if running is None:
                actions.append(types.CodeAction(
                    title=f"Optimize {module.name} with AdaExplore", kind=types.CodeActionKind.RefactorRewrite,
                    command=types.Command(title=f"Optimize {module.name} with AdaExplore", command=CMD_OPTIMIZE,
                                          arguments=args)))
            else:
                actions.append(types.CodeAction(
                    title=f"Cancel AdaExplore job for {module.name}", kind=types.CodeActionKind.RefactorRewrite,
                    command=types.Command(title="Cancel", command=CMD_CANCEL, arguments=[running.id])))
        result, state = ls.result_for(uri, text, module)
        if result is not None and result.get("best") and state == "fresh":
            for title, command in ((f"Apply AdaExplore result to {module.name}", CMD_APPLY),
                                   (f"Preview AdaExplore result for {module.name}", CMD_PREVIEW)):
                actions.append(types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite,
                                                command=types.Command(title=title, command=command, arguments=args)))
        return actions

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: AdaExploreServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        text, _ = ls.text_of(uri)
        lenses = []
        for module in analysis.find_modules(text, ls.encoding()):
            at = types.Range(_lsp_position(module.range.start), _lsp_position(module.range.start))
            args = [uri, module.name]
            job = ls.jobs.running_for(uri, module.name)
            if job is not None:
                label = f"⏳ AdaExplore: {job.status_line()}" if job.state == RUNNING else "⏳ AdaExplore: queued"
                lenses.append(types.CodeLens(range=at, command=types.Command(
                    title=label + " · Cancel", command=CMD_CANCEL, arguments=[job.id])))
                continue
            result, state = ls.result_for(uri, text, module)
            if result is not None and result.get("best") and state == "fresh":
                if is_slower(result):           # nothing worth applying: offer another search instead
                    first, last = f"AdaExplore: no faster kernel found (best {headline(result)})", \
                        ("Optimize again", CMD_OPTIMIZE)
                else:
                    first, last = f"⚡ {headline(result)}", ("Apply", CMD_APPLY)
                for title, command in ((first, CMD_SHOW), ("Preview", CMD_PREVIEW), last):
                    lenses.append(types.CodeLens(range=at, command=types.Command(
                        title=title, command=command, arguments=args)))
            elif result is not None and state == "applied":
                lenses.append(types.CodeLens(range=at, command=types.Command(
                    title=f"✓ AdaExplore applied: {headline(result)}", command=CMD_SHOW, arguments=args)))
            elif module.inputs is not None and not module.inputs.error:
                title = f"AdaExplore result is stale ({ls.stale_reason(text, module, result)}) · Optimize again" \
                    if state == "stale" else "Optimize with AdaExplore"
                lenses.append(types.CodeLens(range=at, command=types.Command(
                    title=title, command=CMD_OPTIMIZE, arguments=args)))
        return lenses

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    def inlay_hint(ls: AdaExploreServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        uri = params.text_document.uri
        text, _ = ls.text_of(uri)
        hints = []
        for module in analysis.find_modules(text, ls.encoding()):
            result, state = ls.result_for(uri, text, module)
            if result is None or not result.get("best") or state != "fresh":
                continue
            best = result["best"]
            if is_slower(result):
                label = f"{best['speedup_vs_eager']:.2f}x (not faster)"
            else:
                label = f"⚡{best['speedup_vs_eager']:.2f}x" if best.get("timed") else "⚡valid"
            hints.append(types.InlayHint(position=_lsp_position(module.name_range.end), label=label,
                                         padding_left=True, tooltip=headline(result)))
        return hints

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: AdaExploreServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        text, _ = ls.text_of(uri)
        at = Position(params.position.line, params.position.character)
        for module in analysis.find_modules(text, ls.encoding()):
            r = module.name_range
            if r.start.line == at.line and r.start.character <= at.character <= r.end.character:
                result, state = ls.result_for(uri, text, module)
                if result is None or not result.get("best"):
                    return None
                markdown = hover_markdown(result, state, module, ls.stale_reason(text, module, result))
                return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
                                   range=_lsp_range(r))
        return None

    @server.command(CMD_OPTIMIZE)
    @safely
    @for_class
    async def optimize(ls: AdaExploreServer, uri: str, class_name: str) -> Any:
        summary = await ls.start_job(uri, class_name)
        await ls.refresh(uri)
        return summary

    @server.command(CMD_CANCEL)
    @safely
    async def cancel(ls: AdaExploreServer, *args: Any) -> Any:
        if len(args) != 1 or not isinstance(args[0], str):
            raise UserError("expected the argument [jobId]")
        job = ls.jobs.cancel(args[0])
        if job is None:
            raise UserError(f"no job {args[0]!r}")
        return job.summary()

    @server.command(CMD_JOBS)
    @safely
    async def list_jobs(ls: AdaExploreServer, *args: Any) -> Any:
        return [j.summary() for j in ls.jobs.jobs.values()]

    @server.command(CMD_PREVIEW)
    @safely
    @for_class
    async def preview(ls: AdaExploreServer, uri: str, class_name: str) -> Any:
        shown = ls.preview(uri, class_name)
        if _client_supports(ls, "window.show_document.support"):
            try:
                await asyncio.wait_for(ls.window_show_document_async(types.ShowDocumentParams(
                    uri=shown["uri"], take_focus=True)), timeout=10)
            except Exception:  # noqa: BLE001 - the text is returned anyway (clients may diff it themselves)
                pass
        return shown

    @server.command(CMD_APPLY)
    @safely
    @for_class
    async def apply(ls: AdaExploreServer, uri: str, class_name: str) -> Any:
        result = await ls.apply(uri, class_name)
        await ls.refresh(uri)
        return result

    @server.command(CMD_SHOW)
    @safely
    @for_class
    async def show(ls: AdaExploreServer, uri: str, class_name: str) -> Any:
        text, _ = ls.text_of(uri)
        module = ls.module_named(text, class_name)
        if module is None:
            raise UserError(f"no nn.Module class {class_name!r} in the document")
        result, state = ls.result_for(uri, text, module)
        if result is None:
            raise UserError(f"no AdaExplore result for {class_name} yet")
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info,
                                                       message=f"AdaExplore, {class_name}: {headline(result)}"))
        return {"state": state, "headline": headline(result), "best": result.get("best")}

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: AdaExploreServer, params: None) -> None:
        await ls.jobs.shutdown()

    return server

