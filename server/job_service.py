"""The server's side of search jobs: start one for a class of a document, cancel it, and turn its events into
work-done progress, messages and a cached result. The processes themselves are ``jobs.py``'s."""
from __future__ import annotations

import asyncio
import functools
import importlib.metadata
import shutil
import sys
import uuid
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from . import analysis, presenters
from .analysis import ModuleClass
from .cache import content_key, private_directory
from .documents import Document, uri_to_path
from .jobs import CANCELLED, FAILED, RUNNING, Job, JobManager, read_result
from .settings import Settings

if TYPE_CHECKING:
    from .server import AdaExploreServer

PROGRESS_EVENTS = ("candidate_judged", "best_improved", "job_started")


class UserError(Exception):
    """Shown to the user as is."""


def environment_fingerprint(settings: Settings, python: str = sys.executable) -> str:
    """What a result depends on beyond the code: interpreter, torch and triton versions, device, proposer
    (versions from package metadata: nothing is imported)."""
    return _fingerprint(python, settings.device, settings.proposer)


@functools.lru_cache(maxsize=16)
def _fingerprint(python: str, device: str, proposer: str) -> str:
    return "|".join([python, *_package_versions(python), device, proposer])


@functools.lru_cache(maxsize=4)
def _package_versions(python: str) -> tuple[str, str]:
    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "missing"
    return version("torch"), version("triton")


def result_key(text: str, module: ModuleClass, settings: Settings) -> str:
    """The cache key of a search of ``module`` (its text, its example inputs, the environment)."""
    return _content_key(module.source, analysis.inputs_text(text, module), environment_fingerprint(settings))


_content_key = functools.lru_cache(maxsize=4096)(content_key)    # every request asks again for every class


class JobService:
    def __init__(self, ls: "AdaExploreServer") -> None:
        self.ls = ls
        self.manager = JobManager(self.on_event)

    def running_for(self, key: str, class_name: str) -> Job | None:
        return self.manager.running_for(key, class_name)

    def summaries(self) -> list[dict[str, Any]]:
        return [job.summary() for job in self.manager.jobs.values()]

    def cancel(self, job_id: str) -> dict[str, Any]:
        job = self.manager.cancel(job_id)
        if job is None:
            raise UserError(f"no job {job_id!r}")
        return job.summary()

    async def start(self, doc: Document, class_name: str) -> dict[str, Any]:
        settings = self.ls.settings
        module = self._checked_module(doc, class_name, settings)
        path = uri_to_path(doc.key)
        try:
            workdir = private_directory(settings.cache_path() / "jobs" / uuid.uuid4().hex[:12])
            reference = workdir / (path.name if path is not None and path.suffix == ".py" else "module.py")
            reference.write_text(analysis.engine_source(doc.text, module), encoding="utf-8")
        except OSError as e:
            raise UserError(f"cannot make the search's folder in {settings.cache_path()} ({e.strerror or e}): set "
                            "adaexplore.cacheDir to a writable folder") from e
        cwd = path.parent if path is not None and path.parent.is_dir() else workdir
        job = Job(uri=doc.key, class_name=class_name, digest=module.digest(), version=doc.version,
                  content_key=result_key(doc.text, module, settings), device=settings.device, steps=settings.steps,
                  proposer=settings.proposer, model=settings.model, base_url=settings.base_url,
                  cache_dir=str(settings.cache_path()), workdir=workdir,
                  inputs_text=analysis.inputs_text(doc.text, module), fingerprint=environment_fingerprint(settings))
        job.progress_token = f"adaexplore-{job.id}-{uuid.uuid4().hex[:6]}"
        self.manager.jobs[job.id] = job             # taken before the first await: a second click is refused
        await self._begin_progress(job)
        self.manager.start(job, reference, cwd)
        return job.summary()

    def _checked_module(self, doc: Document, class_name: str, settings: Settings) -> ModuleClass:
        module = self.ls.module_named(doc, class_name)
        if module is None:
            raise UserError(f"no nn.Module class {class_name!r} in {doc.uri}")
        if module.inputs is None:
            raise UserError(f"{class_name} has no example inputs: use the code action 'Add example inputs for "
                            f"AdaExplore' (or define get_inputs() and get_init_inputs() in the file)")
        if module.inputs.error:
            raise UserError(f"{class_name}'s annotation: {module.inputs.error}")
        error = analysis.syntax_error(doc.text)
        if error:
            raise UserError(f"the file has a syntax error ({error}); fix it before optimizing")
        if settings.proposer == "llm" and not settings.model:
            raise UserError("the LLM proposer needs a model: set adaexplore.model (and adaexplore.baseUrl for a "
                            "local server); the key comes from OPENAI_API_KEY in the server's environment")
        running = self.running_for(doc.key, class_name)
        if running is not None:
            raise UserError(f"{class_name} is already being optimized ({running.id}, {running.state})")
        return module

    async def _begin_progress(self, job: Job) -> None:
        ls, token = self.ls, job.progress_token
        opted_out = isinstance(ls.init_options, dict) and ls.init_options.get("workDoneProgress") is False
        if opted_out or not ls.client_supports("window.work_done_progress"):
            job.progress_token = None              # e.g. the VS Code extension shows its own cancellable progress
            return
        try:
            await asyncio.wait_for(ls.work_done_progress.create_async(token), timeout=10)
        except Exception:  # noqa: BLE001 - the client refused: no progress, the job still runs
            job.progress_token = None
            return
        waiting = self.manager.busy(job.device)
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=f"AdaExplore: {job.class_name}", cancellable=True, percentage=0,
            message=f"waiting for {job.device} (another search runs there)" if waiting else "starting"))
        future = ls.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f, job_id=job.id: f.cancelled() and self.manager.cancel(job_id))

    async def on_event(self, job: Job, event: dict[str, Any] | None) -> None:
        """JobManager's listener: progress for events, the result (or failure) when the job ends."""
        ls, token = self.ls, job.progress_token
        if event is not None:
            if token and event["event"] in PROGRESS_EVENTS:
                ls.work_done_progress.report(token, types.WorkDoneProgressReport(
                    message=job.status_line(), percentage=min(100, int(100 * job.step / max(job.steps, 1))),
                    cancellable=True))
            if event["event"] == "error" and not event["fatal"]:
                ls.log(f"{job.id}: {event['message']}")
            return
        if job.state == RUNNING:
            if token:
                ls.work_done_progress.report(token, types.WorkDoneProgressReport(message="running", percentage=0))
            return
        message = f"{job.class_name}: {job.state}"
        try:
            message = await self._finish(job)
        finally:                                   # the client's progress ends, whatever _finish met
            if token:
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    async def _finish(self, job: Job) -> str:
        ls = self.ls
        if job.state == CANCELLED:
            shutil.rmtree(job.workdir, ignore_errors=True)
            return f"{job.class_name}: cancelled"
        if job.state == FAILED:
            ls.show(types.MessageType.Error, presenters.job_failed_text(job.class_name, job.message, job.workdir))
            return f"{job.class_name}: failed"
        result = read_result(job)
        shutil.rmtree(job.workdir, ignore_errors=True)     # the result is cached; the run folder is not needed
        if result is None:
            ls.show(types.MessageType.Warning, presenters.no_report_text(job.class_name))
            return f"{job.class_name}: no report"
        result.update(inputs=job.inputs_text, fingerprint=job.fingerprint)
        ls.cache.put(job.content_key, job.uri, job.class_name, result)
        await ls.refresh(job.uri)
        if not result.get("best"):
            text = presenters.no_valid_text(result)
            ls.show(types.MessageType.Warning, presenters.result_text(job.class_name, text))
            return f"{job.class_name}: {text}"
        return f"{job.class_name}: {presenters.headline(result)}"
