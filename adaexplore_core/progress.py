"""Progress of long commands (optimize, bench, adapt) on stderr, with elapsed time and an estimate of the time
left, built from the events a search emits (``adaexplore_core/search/events.py``).

On a terminal a rich progress bar redraws itself; anywhere else (a pipe, a log file, CI) one plain line per
judged candidate, without control characters. The estimate is the mean time per candidate judged in this run
times the candidates left; it is unknown ("-") until the first candidate is judged.
"""
from __future__ import annotations

import contextlib
import re
import threading
import time
from typing import IO, Any, Iterator

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clock(seconds: float | None) -> str:
    """Seconds as H:MM:SS; '-' when unknown."""
    if seconds is None:
        return "-"
    whole = max(0, int(round(seconds)))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _plain(text: str) -> str:
    """Text with control characters (from a model's or an error's message) replaced by spaces."""
    return _CONTROL.sub(" ", text)


class SearchClock:
    """Steps and time of one search job: elapsed since it started, and the estimated time left."""

    def __init__(self, steps: int, resumed: int, now: float) -> None:
        self.steps, self.resumed, self.done, self.started = steps, resumed, resumed, now

    def judged(self, step: int) -> None:
        self.done = step

    def elapsed(self, now: float) -> float:
        return now - self.started

    def remaining(self, now: float) -> float | None:
        """Seconds left at the mean pace of this run so far; None before its first candidate."""
        done_here = self.done - self.resumed
        if done_here <= 0:
            return None
        return self.elapsed(now) / done_here * max(0, self.steps - self.done)


class SearchProgress:
    """An event listener (``EventSink.listeners``) that shows step, best result, valid share, elapsed and ETA."""

    def __init__(self, stream: IO[str], live: bool | None = None) -> None:
        self.stream = stream
        self.live = stream.isatty() if live is None else live
        self._lock = threading.Lock()
        self._clock: SearchClock | None = None
        self._task = ""
        self.valid, self.best = 0, "none yet"
        self._bar: Any = None          # rich.progress.Progress while a job runs on a terminal
        self._bar_task: Any = None

    # events ---------------------------------------------------------------------------------------------
    def __call__(self, event: dict[str, Any]) -> None:
        with self._lock:
            handler = getattr(self, "_on_" + event["event"], None)
            if handler is not None:
                handler(event)

    def _on_job_started(self, event: dict[str, Any]) -> None:      # bench and adapt run one job per search
        self._finish_bar()
        self._clock = SearchClock(event["steps"], event["resumed_steps"], time.monotonic())
        self._task = event["task"].rsplit("/", 1)[-1]            # file.py::Class, without its folder
        self.valid, self.best = 0, "none yet"
        resumed = f", resumed after {event['resumed_steps']}" if event["resumed_steps"] else ""
        if self.live:
            self._start_bar()
        else:
            self._line(f"search of {self._task}: {event['steps']} candidate(s){resumed}")

    def _on_candidate_judged(self, event: dict[str, Any]) -> None:
        if self._clock is None:
            return
        self._clock.judged(event["step"])
        self.valid += event["verdict"] == "valid"
        if event["verdict"] == "valid" and self.best == "none yet":   # best_improved follows this event
            self.best = _best_text(event["speedup_vs_eager"], event["speedup_vs_eager"] is not None)
        mark = "valid" if event["verdict"] == "valid" else f"{event['verdict']} ({event['stage']})"
        judged_here = event["step"] - self._clock.resumed
        status = f"best {self.best} | valid {self.valid}/{judged_here} | {event['kind']}: {mark}"
        if self.live:
            self._update_bar(status)
        else:
            now = time.monotonic()
            self._line(f"step {event['step']}/{event['steps']} | elapsed {clock(self._clock.elapsed(now))} | "
                       f"ETA {clock(self._clock.remaining(now))} | {status}")

    def _on_best_improved(self, event: dict[str, Any]) -> None:
        self.best = _best_text(event["speedup_vs_eager"], event["timed"])

    def _on_error(self, event: dict[str, Any]) -> None:
        if not event["fatal"]:                     # a fatal error is the command's own message
            self._line(f"error: {event['message']}")

    def _on_job_finished(self, event: dict[str, Any]) -> None:
        elapsed = self._clock.elapsed(time.monotonic()) if self._clock else 0.0
        self._finish_bar()
        how = "interrupted" if event["interrupted"] else "finished"
        self._line(f"search {how}: {event['steps']} candidate(s), {event['valid']} valid, in {clock(elapsed)}")
        self._clock = None

    # output ---------------------------------------------------------------------------------------------
    def _line(self, text: str) -> None:
        if self._bar is not None:
            self._bar.console.print(_plain(text), markup=False, highlight=False)
        else:
            self.stream.write(_plain(text) + "\n")
            self.stream.flush()

    def _start_bar(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        assert self._clock is not None
        self._bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(bar_width=20),
                             MofNCompleteColumn(),
                             TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("ETA"), _remaining_column(),
                             TextColumn("{task.fields[status]}", markup=False),
                             console=Console(file=self.stream), refresh_per_second=2, redirect_stdout=False)
        self._bar_task = self._bar.add_task(self._task, total=self._clock.steps, completed=self._clock.done,
                                            status="starting", deadline=None)
        self._bar.start()

    def _update_bar(self, status: str) -> None:
        assert self._clock is not None
        now = time.monotonic()
        remaining = self._clock.remaining(now)
        self._bar.update(self._bar_task, completed=self._clock.done, status=_plain(status),
                         deadline=None if remaining is None else now + remaining)

    def _finish_bar(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def close(self) -> None:
        """Stop a running bar (the command ended without ``job_finished``, e.g. on a fatal error)."""
        with self._lock:
            self._finish_bar()


def _best_text(speedup: float | None, timed: bool) -> str:
    return f"{speedup:.2f}x vs eager" if timed and speedup is not None else "valid (not timed)"


def _remaining_column() -> Any:
    """A rich column for the estimated time left (rich is imported only for a terminal)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class RemainingColumn(ProgressColumn):
        """The estimate counting down between events: the deadline set at the last judged candidate."""

        def render(self, task: Any) -> Text:
            deadline = task.fields.get("deadline")
            return Text(clock(None if deadline is None else max(0.0, deadline - time.monotonic())))

    return RemainingColumn()


@contextlib.contextmanager
def search_progress(sink: Any, stream: IO[str], enabled: bool) -> Iterator[SearchProgress | None]:
    """Show the progress of ``sink``'s jobs on ``stream`` while the block runs (nothing when not enabled)."""
    if not enabled:
        yield None
        return
    progress = SearchProgress(stream)
    sink.listeners.append(progress)
    try:
        yield progress
    finally:
        progress.close()
