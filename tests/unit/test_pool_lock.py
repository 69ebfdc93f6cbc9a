"""GpuLock: shared holders together, exclusive alone, and a waiting exclusive goes before new shared ones.

Threads are daemons and every wait is bounded, so a broken lock fails the test instead of hanging it.
"""
from __future__ import annotations

import threading
import time

from adaexplore_core.judge.pool import GpuLock

WAIT = 2.0       # generous bound for something that must happen
BLOCKED = 0.15   # how long something that must not happen is given to happen


class Holder:
    """A thread that takes the lock, reports it, and holds it until told to let go."""

    def __init__(self, lock: GpuLock, exclusive: bool, log: list[str] | None = None, name: str = "") -> None:
        self.lock, self.exclusive = lock, exclusive
        self.acquired, self.release_now, self.released = threading.Event(), threading.Event(), threading.Event()
        self.log, self.name = log, name
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.lock.acquire(self.exclusive)
        if self.log is not None:
            self.log.append(self.name)
        self.acquired.set()
        self.release_now.wait(WAIT * 5)
        self.lock.release(self.exclusive)
        self.released.set()

    def let_go(self) -> None:
        self.release_now.set()
        assert self.released.wait(WAIT)
        self.thread.join(WAIT)


def wait_until(predicate, timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def test_several_shared_holders_at_once():
    lock = GpuLock()
    together = threading.Barrier(3, timeout=WAIT)   # breaks unless all three hold the lock at the same time
    errors: list[BaseException] = []

    def shared() -> None:
        lock.acquire(False)
        try:
            together.wait()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
        finally:
            lock.release(False)

    threads = [threading.Thread(target=shared, daemon=True) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 2)
    assert not errors and not any(t.is_alive() for t in threads)


def test_exclusive_waits_for_all_shared_holders():
    lock = GpuLock()
    a, b = Holder(lock, False), Holder(lock, False)
    assert a.acquired.wait(WAIT) and b.acquired.wait(WAIT)
    writer = Holder(lock, True)
    assert not writer.acquired.wait(BLOCKED)
    a.let_go()
    assert not writer.acquired.wait(BLOCKED)        # b still holds it
    b.let_go()
    assert writer.acquired.wait(WAIT)
    writer.let_go()


def test_exclusive_excludes_everyone():
    lock = GpuLock()
    writer = Holder(lock, True)
    assert writer.acquired.wait(WAIT)
    reader, other_writer = Holder(lock, False), Holder(lock, True)
    assert not reader.acquired.wait(BLOCKED)
    assert not other_writer.acquired.is_set()
    writer.let_go()
    assert wait_until(lambda: reader.acquired.is_set() or other_writer.acquired.is_set())
    # Whoever got it, the other must still be waiting if it is the writer/reader pair.
    assert not (reader.acquired.is_set() and other_writer.acquired.is_set())
    first, second = (reader, other_writer) if reader.acquired.is_set() else (other_writer, reader)
    first.let_go()
    assert second.acquired.wait(WAIT)
    second.let_go()


def test_waiting_exclusive_blocks_new_shared_holders():
    lock = GpuLock()
    order: list[str] = []
    early = Holder(lock, False, order, "early-shared")
    assert early.acquired.wait(WAIT)
    writer = Holder(lock, True, order, "writer")
    assert wait_until(lambda: lock._writers_waiting == 1)   # the writer is queued, not holding
    assert not writer.acquired.is_set()
    late = Holder(lock, False, order, "late-shared")
    assert not late.acquired.wait(BLOCKED), "a new shared holder overtook a waiting exclusive one"
    early.let_go()
    assert writer.acquired.wait(WAIT)
    assert not late.acquired.wait(BLOCKED), "a shared holder got in while the exclusive one held the lock"
    writer.let_go()
    assert late.acquired.wait(WAIT)
    late.let_go()
    assert order == ["early-shared", "writer", "late-shared"]


def test_lock_is_reusable_after_release():
    lock = GpuLock()
    for exclusive in (True, False, True):
        h = Holder(lock, exclusive)
        assert h.acquired.wait(WAIT)
        h.let_go()
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)
