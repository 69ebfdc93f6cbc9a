"""Judging on a Ray cluster (``--ray auto|ADDRESS``): ``RayJudgePool`` offers the local pool's interface
(``submit`` -> Future of a Verdict, ``judge``, ``close``, ``config``) with one Ray actor per GPU.

Each actor wraps an ordinary ``judge.pool.JudgePool`` on its one device, so the static guard, the sandbox, the
zygote and every candidate's fresh process hold inside the actor's node exactly as they do on this machine; the
actors only judge. The search stays in the calling process, which keeps the queue: a candidate goes to an
actor with a free slot. When an actor or its node is lost, only the candidates it was judging are touched: each
is judged once more on another actor, and a candidate lost a second time gets an ``error`` verdict saying
"node lost". The lost actor is not used again. Ray is the optional extra ``adaexplore[ray]``; nothing here is
imported without it.
"""
from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import os
import signal
import socket
import sys
import threading
from dataclasses import dataclass
from typing import Any, Iterator

from ..judge.pool import JudgeConfig, JudgePool, default_memory_limit_mb
from ..judge.protocol import SECRET_PATTERN
from ..judge.verdict import Check, Verdict, error
from ..task import TaskSpec

NODE_LOST = "node lost"
JUDGINGS_PER_CANDIDATE = 2      # the first judging, and one more when its actor or node was lost
WAIT_SECONDS = 0.2              # how often the dispatcher looks at the queue while verdicts are awaited
ACTOR_START_SECONDS = 600.0     # for every actor to be placed and ready (a cluster may have to add nodes)


class RayUnavailable(Exception):
    """Ray is not installed, or the cluster cannot be reached or used; the message says what to do."""


def require_ray() -> Any:
    try:
        import ray
    except ModuleNotFoundError as e:
        raise RayUnavailable("--ray needs the 'ray' extra, which is not installed: pip install 'adaexplore[ray]'") \
            from e
    return ray


@contextlib.contextmanager
def ray_session(address: str, *, num_cpus: int | None = None, num_gpus: int | None = None,
                object_store_mb: int | None = None) -> Iterator[None]:
    """Connected to a Ray cluster for the block. ``auto``: the cluster this machine belongs to (``RAY_ADDRESS``
    or one ``ray start`` began), else a new local one; ``local``: a new local one; any other value is the
    address of a running cluster (``HOST:6379`` or ``ray://HOST:10001``). ``num_cpus``, ``num_gpus`` and
    ``object_store_mb`` size a new local cluster (a CPU machine may declare GPUs). A local cluster starts with no
    secret in its environment, since its workers, the actors among them, inherit it: API keys stay in this
    process. A session already open (``ray.init`` by the caller) is used as it is. What ``ray.init`` replaces
    in this process (SIGTERM's handler, ``sys.excepthook``) is given back at the end."""
    sigterm, excepthook = signal.getsignal(signal.SIGTERM), sys.excepthook     # before ray's import sets one
    ray = require_ray()
    if ray.is_initialized():
        yield
        return
    hidden = {k: v for k, v in os.environ.items() if SECRET_PATTERN.search(k)}
    local = {"num_cpus": num_cpus, "num_gpus": num_gpus,
             "object_store_memory": object_store_mb * (1 << 20) if object_store_mb else None}
    try:
        try:
            for name in hidden:
                del os.environ[name]
            if address == "auto":
                try:
                    ray.init(address="auto", include_dashboard=False, log_to_driver=False)
                except ConnectionError:
                    address = "local"
            if address == "local":
                ray.init(address="local", include_dashboard=False, log_to_driver=False, **local)
            elif not ray.is_initialized():
                _check_reachable(address)
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError) as e:
            raise RayUnavailable(f"cannot connect to the Ray cluster at {address!r}: {e}") from e
        finally:
            os.environ.update(hidden)
        yield
    finally:
        ray.shutdown()
        signal.signal(signal.SIGTERM, sigterm)
        sys.excepthook = excepthook


HEAD_CONNECT_SECONDS = 10.0


def _check_reachable(address: str) -> None:
    """A ``HOST:PORT`` head answers on its port (Ray itself waits minutes on one that does not)."""
    host, _, port = address.rpartition(":")
    if address.startswith("ray://") or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=HEAD_CONNECT_SECONDS).close()
    except OSError as e:
        raise ConnectionError(f"nothing answers at {address} ({e}); is `ray start --head` running there?") from e


class JudgeActor:
    """A judge on one node and one device: a local JudgePool, its slots judging concurrently (a threaded actor
    with one thread per slot). Made a Ray actor class by ``_actor_class``."""

    def __init__(self, config: JudgeConfig, device: str, actors_on_node: int) -> None:
        workers = config.workers_per_device * max(1, actors_on_node)
        config = dataclasses.replace(config, devices=(device,), python=sys.executable,
                                     memory_limit_mb=config.memory_limit_mb or default_memory_limit_mb(workers))
        self.pool = JudgePool(config)
        self.device = device

    def describe(self) -> dict[str, Any]:
        import ray
        context = ray.get_runtime_context()
        return {"node": context.get_node_id(), "actor": context.get_actor_id(), "device": self.device,
                "pid": os.getpid(), "secrets_in_environment": sorted(k for k in os.environ if SECRET_PATTERN.search(k))}

    def judge(self, task: dict[str, Any], source: str, options: dict[str, Any]) -> dict[str, Any]:
        return self.pool.judge(TaskSpec(**task), source, **options).to_dict()

    def close(self) -> None:
        self.pool.close()


def _actor_class(ray: Any) -> Any:
    return ray.remote(JudgeActor)


@dataclass
class _Job:
    task: dict[str, Any]
    source: str
    options: dict[str, Any]
    future: concurrent.futures.Future
    losses: list[str] = dataclasses.field(default_factory=list)   # how each earlier judging was lost


@dataclass
class _Actor:
    index: int
    handle: Any
    node: str
    free: int
    alive: bool = True
    judged: int = 0                 # verdicts it gave


class RayJudgePool:
    """Judge candidates on Ray actors, one per GPU (resource ``GPU: 1``), each with ``config.workers_per_device``
    slots. ``device``: what an actor judges on, ``"cuda:0"`` (the GPU Ray gave it) or ``"cpu"`` (the Triton
    interpreter; a CPU cluster still declares GPU resources, so actors are placed the same way). ``actors``:
    how many (default: one per GPU of the cluster). Needs an open Ray session (``ray_session``)."""

    def __init__(self, config: JudgeConfig, *, device: str = "cuda:0", actors: int | None = None) -> None:
        ray = self._ray = require_ray()
        if not ray.is_initialized():
            raise RayUnavailable("no Ray session: connect first (ray_session)")
        gpus = int(ray.cluster_resources().get("GPU", 0))
        count = actors or gpus
        if count < 1:
            raise RayUnavailable("the Ray cluster declares no GPU; judge actors need one each (start the nodes "
                                 "with GPUs, or declare them with `ray start --num-gpus N` on a CPU cluster)")
        if count > gpus:
            raise RayUnavailable(f"{count} judge actors asked for, but the Ray cluster has {gpus} GPU(s)")
        self.config = dataclasses.replace(config, devices=(device,))
        self.actor_count = count
        per_node = self._gpus_per_node(ray)
        cls = _actor_class(ray).options(num_gpus=1, num_cpus=0, max_concurrency=config.workers_per_device + 2)
        handles = [cls.remote(self.config, device, per_node) for _ in range(count)]
        try:
            described = ray.get([h.describe.remote() for h in handles], timeout=ACTOR_START_SECONDS)
        except Exception as e:  # noqa: BLE001 - any failure to start is said plainly and ends the pool
            for h in handles:
                ray.kill(h)
            raise RayUnavailable(f"the judge actors did not start: {type(e).__name__}: {e}") from e
        self.actors = [_Actor(i, h, d["node"], config.workers_per_device) for i, (h, d) in
                       enumerate(zip(handles, described))]
        self._lock = threading.Condition()
        self._queue: collections.deque[_Job] = collections.deque()
        self._running: dict[Any, tuple[_Job, _Actor]] = {}
        self._closed = False
        self._dispatcher = threading.Thread(target=self._dispatch, name="ray-judge-dispatcher", daemon=True)
        self._dispatcher.start()

    @staticmethod
    def _gpus_per_node(ray: Any) -> int:
        """The most GPUs of one node: the actors that may share a node's memory."""
        counts = [int(n.get("Resources", {}).get("GPU", 0)) for n in ray.nodes() if n.get("Alive")]
        return max(counts, default=1)

    def submit(self, task: TaskSpec, candidate_source: str, *, trials: int | None = None,
               timing: bool | None = None, tolerance: dict[str, float] | None = None,
               rounds: int | None = None, name: str = "candidate.py") -> concurrent.futures.Future:
        """Queue one candidate, as ``JudgePool.submit`` does; the reference's text travels with it."""
        future: concurrent.futures.Future = concurrent.futures.Future()
        options = {"trials": trials, "timing": timing, "tolerance": tolerance, "rounds": rounds, "name": name}
        with_text = TaskSpec(path=task.path, class_name=task.class_name, source=task.read_source())
        with self._lock:
            if self._closed:
                raise RuntimeError("the judge pool is closed")
            if not any(a.alive for a in self.actors):
                future.set_result(self._all_lost())
                return future
            self._queue.append(_Job(with_text.to_dict(), candidate_source, options, future))
            self._lock.notify_all()
        return future

    def judge(self, task: TaskSpec, candidate_source: str, **kwargs: Any) -> Verdict:
        """Judge one candidate and wait for its verdict."""
        return self.submit(task, candidate_source, **kwargs).result()

    def alive_actors(self) -> list[_Actor]:
        with self._lock:
            return [a for a in self.actors if a.alive]

    def judging(self) -> list[tuple[int, str]]:
        """What is being judged now: (actor index, candidate name) of each candidate with an actor."""
        with self._lock:
            return [(actor.index, job.options["name"]) for job, actor in self._running.values()]

    # the dispatcher thread: jobs to free slots, verdicts to futures
    def _dispatch(self) -> None:
        ray = self._ray
        while True:
            with self._lock:
                if self._closed:
                    return
                self._start_queued()
                refs = list(self._running)
                if not refs:
                    self._lock.wait(WAIT_SECONDS)
                    continue
            done, _ = ray.wait(refs, num_returns=1, timeout=WAIT_SECONDS)
            for ref in done:
                self._finish(ref)

    def _start_queued(self) -> None:
        """With the lock held: give queued jobs to actors with a free slot (the least busy first)."""
        while self._queue:
            free = [a for a in self.actors if a.alive and a.free > 0]
            if not free:
                return
            job = self._queue.popleft()
            if job.future.cancelled():
                continue
            actor = max(free, key=lambda a: a.free)
            actor.free -= 1
            ref = actor.handle.judge.remote(job.task, job.source, job.options)
            self._running[ref] = (job, actor)

    def _finish(self, ref: Any) -> None:
        ray = self._ray
        try:
            verdict = Verdict.from_dict(ray.get(ref))
            lost = None
        except (ray.exceptions.RayActorError, ray.exceptions.NodeDiedError, ray.exceptions.ObjectLostError) as e:
            verdict, lost = None, f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0]}"
        except Exception as e:  # noqa: BLE001 - the actor itself failed: an error verdict, never a lost future
            verdict, lost = error("internal", f"The judge actor failed: {type(e).__name__}: {e}"), None
        with self._lock:
            if ref not in self._running:              # the pool was closed meanwhile: its future is cancelled
                return
            job, actor = self._running.pop(ref)
            if lost is None:
                actor.free += 1
                actor.judged += 1
                if job.losses:
                    verdict.checks.append(Check("requeued", True, f"judged again after a {NODE_LOST}: "
                                                                  + "; ".join(job.losses)))
                self._resolve(job, verdict)
                return
            if actor.alive:
                actor.alive = False
                print(f"adaexplore: judge actor {actor.index} on node {actor.node[:12]} was lost ({lost}); "
                      f"{sum(a.alive for a in self.actors)} actor(s) go on", file=sys.stderr, flush=True)
            job.losses.append(f"actor {actor.index} on node {actor.node[:12]}: {lost}")
            if len(job.losses) < JUDGINGS_PER_CANDIDATE and any(a.alive for a in self.actors):
                self._queue.appendleft(job)          # the same candidate, judged afresh on another actor
            else:
                self._resolve(job, error("internal", f"{NODE_LOST}: the candidate's judging was lost with its Ray "
                                                     f"actor or node {len(job.losses)} time(s) ("
                                                     + "; ".join(job.losses) + ")"))
            if not any(a.alive for a in self.actors):
                while self._queue:
                    self._resolve(self._queue.popleft(), self._all_lost())

    def _all_lost(self) -> Verdict:
        return error("internal", f"{NODE_LOST}: every Ray judge actor of this run was lost; none is left to judge")

    @staticmethod
    def _resolve(job: _Job, verdict: Verdict) -> None:
        with contextlib.suppress(concurrent.futures.InvalidStateError):   # cancelled by its search meanwhile
            job.future.set_result(verdict)

    def close(self) -> None:
        """Cancel every candidate not judged yet (a search waiting on one sees ``CancelledError``), then end
        the actors and every process they started."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            jobs = list(self._queue) + [job for job, _ in self._running.values()]
            self._queue.clear()
            self._running.clear()
            self._lock.notify_all()
        for job in jobs:
            job.future.cancel()
        self._dispatcher.join(WAIT_SECONDS * 10)
        ray = self._ray
        for actor in self.actors:
            if actor.alive:
                with contextlib.suppress(Exception):
                    ray.get(actor.handle.close.remote(), timeout=30)
            with contextlib.suppress(Exception):
                ray.kill(actor.handle)

    def __enter__(self) -> "RayJudgePool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
