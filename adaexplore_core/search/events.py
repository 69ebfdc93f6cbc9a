"""Writing a search job's events (their schema is ``schema/events.py``): validated JSON lines to streams and
listeners."""
from __future__ import annotations

import datetime
import json
import threading
from typing import IO, Any

from ..schema.events import validate


class EventSink:
    """Writes validated events as JSON lines to any number of text streams (a file, stdout), flushing
    each line; also calls ``listeners`` (e.g. the progress display). Thread-safe."""

    def __init__(self, job: str, streams: list[IO[str]] | None = None) -> None:
        self.job = job
        self.streams = list(streams or [])
        self.listeners: list[Any] = []
        self._lock = threading.Lock()

    def emit(self, event_type: str, /, **fields: Any) -> dict[str, Any]:
        event = validate({"event": event_type, "time": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="milliseconds"), "job": self.job, **fields})
        line = json.dumps(event)
        with self._lock:
            for stream in self.streams:
                stream.write(line + "\n")
                stream.flush()
            for listener in self.listeners:
                listener(event)
        return event
