"""One device's timing desk: candidates of the same task that wait to be timed are timed together.

Timing holds the GPU alone, and each round measures eager and torch.compile beside the candidate. Candidates of
one task that reach timing at about the same time (a search judges several at once) share those rounds: each
round measures eager, then every candidate of the group, then torch.compile (reversed in the next round), so
every candidate is still interleaved with the same baseline measurements and the baselines' cost is paid once
per group instead of once per candidate.

The first request to arrive leads: it takes the GPU alone, waits briefly for requests of the same kind that were
announced (their candidate finished its trials and is about to ask), and runs the group. Requests of another
kind, or that arrive during a group, wait for the next leader. Pure threading; the pool supplies the work.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

GRACE_SECONDS = 0.5    # longest a leader holding the GPU waits for announced requests of its kind
GROUP_LIMIT = 6        # candidates timed in one group at most


@dataclass(eq=False)
class _Seat:
    kind: Hashable
    payload: Any
    done: bool = False
    result: Any = None
    error: BaseException | None = None


@dataclass
class TimingDesk:
    """``acquire``/``release`` take and give back the device alone (the pool's exclusive GPU lock)."""

    acquire: Callable[[], None]
    release: Callable[[], None]
    grace_s: float = GRACE_SECONDS
    limit: int = GROUP_LIMIT
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _waiting: list[_Seat] = field(default_factory=list)
    _soon: dict[int, Hashable] = field(default_factory=dict)
    _busy: bool = False

    def announce(self, who: object, kind: Hashable) -> None:
        """``who`` may ask to be timed for ``kind`` soon; a leader of that kind waits for it (``grace_s`` at most)."""
        with self._cond:
            self._soon[id(who)] = kind

    def withdraw(self, who: object) -> None:
        """``who`` will not ask soon after all."""
        with self._cond:
            if self._soon.pop(id(who), None) is not None:
                self._cond.notify_all()

    def time(self, who: object, kind: Hashable, payload: Any, run: Callable[[list[Any]], list[Any]]) -> Any:
        """The result ``run`` gave for ``payload``, timed in a group of payloads of the same ``kind``; ``run``
        takes the group's payloads (this one first when this call leads) and returns one result each."""
        seat = _Seat(kind, payload)
        with self._cond:
            self._soon.pop(id(who), None)
            self._waiting.append(seat)
            self._cond.notify_all()
            self._cond.wait_for(lambda: seat.done or not self._busy)
            if not seat.done:
                self._busy = True
        if not seat.done:
            self._lead(seat, run)
        if seat.error is not None:
            raise seat.error
        return seat.result

    def _lead(self, seat: _Seat, run: Callable[[list[Any]], list[Any]]) -> None:
        group = [seat]
        try:
            self.acquire()
            try:
                with self._cond:
                    self._cond.wait_for(lambda: seat.kind not in self._soon.values(), timeout=self.grace_s)
                    self._waiting.remove(seat)
                    group += [s for s in self._waiting if s.kind == seat.kind][:self.limit - 1]
                    for other in group[1:]:
                        self._waiting.remove(other)
                results = run([s.payload for s in group])
                for s, result in zip(group, results, strict=True):
                    s.result = result
            finally:
                self.release()
        except BaseException as e:  # noqa: BLE001 - every seat of the group gets the failure
            for s in group:
                s.error = e
        finally:
            with self._cond:
                if seat in self._waiting:
                    self._waiting.remove(seat)
                for s in group:
                    s.done = True
                self._busy = False
                self._cond.notify_all()

