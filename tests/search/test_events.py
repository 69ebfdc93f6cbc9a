"""Search events (adaexplore_core.search.events): the schema every event type must match, the parser the
language server relies on, and EventSink (one flushed JSON line per event, listeners called)."""
from __future__ import annotations

import datetime
import io
import json
import threading
import time

import pytest

from adaexplore_core.schema.events import COMMON, SCHEMA, EventError, parse_line, validate
from adaexplore_core.search.events import EventSink

# A correct example of the fields of every event type (common fields added by `event`).
EXAMPLES: dict[str, dict] = {
    "job_started": {"task": "ref.py::Model", "steps": 20, "proposer": "builtin", "devices": ["cpu"],
                    "out": "runs/ref", "resumed_steps": 0},
    "candidate_judged": {"step": 3, "steps": 20, "node": 3, "parent": 1, "kind": "small", "verdict": "valid",
                         "stage": "ok", "reason": "Validated", "description": "1 Triton kernel(s)",
                         "reward": 0.51, "speedup_vs_eager": 1.4, "speedup_vs_compile": None,
                         "duplicate": False, "seconds": 2.5},
    "best_retimed": {"node": 3, "valid": True, "speedup_vs_eager": 1.2, "speedup_vs_compile": None,
                     "first_speedup_vs_eager": 1.4},
    "best_improved": {"step": 3, "node": 3, "speedup_vs_eager": None, "speedup_vs_compile": None,
                      "timed": False, "description": "1 Triton kernel(s)", "gpu": None},
    "rule_learned": {"rule": "keep BLOCK_SIZE a power of two", "score": 1},
    "llm_usage": {"requests": 3, "prompt_tokens": 1200, "completion_tokens": 800, "retries": 1, "seconds": 4.5,
                  "cost_usd": None},
    "job_finished": {"steps": 20, "valid": 15, "valid_share": 0.75, "best_node": None,
                     "speedup_vs_eager": None, "speedup_vs_compile": None, "timed": False,
                     "interrupted": False, "out": "runs/ref"},
    "error": {"message": "proposer: unsupported", "fatal": True},
}


def event(kind: str, **changes) -> dict:
    data = {"event": kind, "time": "2025-01-01T00:00:00.000+00:00", "job": "abc123", **EXAMPLES[kind]}
    data.update(changes)
    return data


def test_examples_cover_every_event_type():
    assert set(EXAMPLES) == set(SCHEMA)
    for kind, fields in EXAMPLES.items():
        assert set(fields) == set(SCHEMA[kind]), kind


@pytest.mark.parametrize("kind", sorted(SCHEMA))
def test_every_event_type_validates(kind):
    e = event(kind)
    assert validate(e) is e
    assert parse_line(json.dumps(e)) == e


def test_optional_and_number_fields_accept_their_alternatives():
    validate(event("candidate_judged", reward=1, speedup_vs_eager=None, speedup_vs_compile=0.9, seconds=0))
    validate(event("best_improved", speedup_vs_eager=2.0, speedup_vs_compile=1.1, timed=True, gpu="NVIDIA H200"))
    validate(event("job_finished", best_node=4, valid_share=1, speedup_vs_eager=2))
    validate(event("rule_learned", score=0.25))


def test_unknown_extra_fields_are_allowed():
    assert validate(event("error", hint="new field"))["hint"] == "new field"


@pytest.mark.parametrize("kind", sorted(SCHEMA))
def test_every_missing_field_is_an_error(kind):
    for name in [n for n in COMMON if n != "event"] + list(SCHEMA[kind]):     # no "event": see below
        e = event(kind)
        del e[name]
        with pytest.raises(EventError, match=repr(name)):
            validate(e)


@pytest.mark.parametrize("kind,name,value", [
    ("job_started", "steps", "20"),
    ("job_started", "steps", 20.0),
    ("job_started", "devices", "cpu"),
    ("job_started", "task", None),
    ("candidate_judged", "node", "3"),
    ("candidate_judged", "reward", "0.5"),
    ("candidate_judged", "reward", None),
    ("candidate_judged", "speedup_vs_eager", "1.4"),
    ("candidate_judged", "seconds", None),
    ("best_improved", "gpu", 1),
    ("job_finished", "best_node", 1.0),
    ("job_finished", "out", None),
    ("error", "message", None),
    ("error", "message", ["x"]),
])
def test_wrong_types_are_errors(kind, name, value):
    with pytest.raises(EventError, match=repr(name)):
        validate(event(kind, **{name: value}))


@pytest.mark.parametrize("kind,name", [
    ("job_started", "steps"), ("job_started", "resumed_steps"),
    ("candidate_judged", "step"), ("candidate_judged", "node"), ("candidate_judged", "parent"),
    ("candidate_judged", "reward"), ("candidate_judged", "seconds"), ("candidate_judged", "speedup_vs_eager"),
    ("best_improved", "node"), ("job_finished", "best_node"), ("job_finished", "valid"),
    ("job_finished", "valid_share"), ("rule_learned", "score"),
])
def test_bool_is_not_a_number(kind, name):
    with pytest.raises(EventError, match=repr(name)):
        validate(event(kind, **{name: True}))


@pytest.mark.parametrize("kind,name", [
    ("candidate_judged", "duplicate"), ("best_improved", "timed"), ("job_finished", "timed"),
    ("job_finished", "interrupted"), ("error", "fatal"),
])
@pytest.mark.parametrize("value", [0, 1, "true", None])
def test_bool_fields_take_only_bools(kind, name, value):
    with pytest.raises(EventError, match=repr(name)):
        validate(event(kind, **{name: value}))


@pytest.mark.parametrize("name", ["event", "time", "job"])
def test_common_fields_must_be_strings(name):
    with pytest.raises(EventError):
        validate(event("error", **{name: 1}))


@pytest.mark.parametrize("kind", ["job_paused", "", None, 3])
def test_unknown_event_type(kind):
    e = event("error")
    e["event"] = kind
    with pytest.raises(EventError, match="unknown event type"):
        validate(e)
    with pytest.raises(EventError):
        parse_line(json.dumps(e))


def test_an_event_without_a_type():
    e = event("error")
    del e["event"]
    with pytest.raises(EventError):
        validate(e)


@pytest.mark.parametrize("line", ["[1, 2]", '"job_started"', "3", "null", "true", json.dumps([event("error")])])
def test_a_line_that_is_not_an_object(line):
    with pytest.raises(EventError, match="object"):
        parse_line(line)


@pytest.mark.parametrize("line", ["", "{", "{'event': 'error'}", "not json", json.dumps(event("error"))[:-1]])
def test_bad_json(line):
    with pytest.raises(EventError, match="not JSON"):
        parse_line(line)


def test_parse_line_accepts_a_trailing_newline():
    assert parse_line(json.dumps(event("error")) + "\n")["message"] == "proposer: unsupported"


# --------------------------------------------------------------------------------------------------------------
# EventSink


class Recording(io.StringIO):
    """A stream that records what had been written at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[str] = []

    def flush(self) -> None:
        super().flush()
        self.flushed.append(self.getvalue())


def test_sink_writes_one_flushed_json_line_per_event():
    a, b = Recording(), Recording()
    sink = EventSink("job42", [a, b])
    first = sink.emit("job_started", **EXAMPLES["job_started"])
    second = sink.emit("error", message="boom", fatal=False)
    for stream in (a, b):
        lines = stream.getvalue().splitlines()
        assert len(lines) == 2 and stream.getvalue().endswith("\n")
        assert [parse_line(line) for line in lines] == [first, second]
        # each line was flushed as soon as it was written
        assert len(stream.flushed) >= 2
        assert stream.flushed[0] == lines[0] + "\n"
        assert stream.flushed[-1] == stream.getvalue()
    assert first["event"] == "job_started" and first["job"] == "job42"
    assert second["message"] == "boom" and second["fatal"] is False


def test_sink_time_is_utc_iso8601():
    e = EventSink("j").emit("error", message="m", fatal=True)
    when = datetime.datetime.fromisoformat(e["time"])
    assert when.utcoffset() == datetime.timedelta(0)
    assert abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 60


def test_sink_calls_listeners_with_each_event():
    seen: list[dict] = []
    also: list[str] = []
    sink = EventSink("j")
    sink.listeners.append(seen.append)
    sink.listeners.append(lambda e: also.append(e["event"]))
    e1 = sink.emit("rule_learned", rule="r", score=0.5)
    e2 = sink.emit("error", message="m", fatal=True)
    assert seen == [e1, e2]
    assert also == ["rule_learned", "error"]


def test_candidate_judged_kind_field_can_be_passed():
    """Regression: emit's first parameter is positional-only, so an event field may be named `kind` (or
    `event_type`) without clashing with it."""
    stream = io.StringIO()
    sink = EventSink("j", [stream])
    e = sink.emit("candidate_judged", **EXAMPLES["candidate_judged"])
    assert e["kind"] == "small" and e["event"] == "candidate_judged"
    assert parse_line(stream.getvalue())["kind"] == "small"
    extra = sink.emit("error", message="m", fatal=False, event_type="ignored by readers")
    assert extra["event"] == "error" and extra["event_type"] == "ignored by readers"


def test_sink_refuses_invalid_events_and_writes_nothing():
    stream = Recording()
    seen: list[dict] = []
    sink = EventSink("j", [stream])
    sink.listeners.append(seen.append)
    with pytest.raises(EventError):
        sink.emit("error", message="m")                          # missing `fatal`
    with pytest.raises(EventError):
        sink.emit("candidate_judged", **{**EXAMPLES["candidate_judged"], "duplicate": 0})
    with pytest.raises(EventError):
        sink.emit("no_such_event")
    assert stream.getvalue() == "" and seen == []


class ChoppyStream(io.StringIO):
    """Writes in small pieces and lets other threads run in between (as a real file or pipe may)."""

    def write(self, text: str) -> int:
        for i in range(0, len(text), 64):
            super().write(text[i:i + 64])
            time.sleep(0)
        return len(text)


def test_sink_lines_do_not_interleave_across_threads():
    stream = ChoppyStream()
    sink = EventSink("j", [stream])
    per_thread = 50

    def emit_many(i: int) -> None:
        for k in range(per_thread):
            sink.emit("error", message=f"thread {i} event {k} " + "x" * 300, fatal=False)

    threads = [threading.Thread(target=emit_many, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 4 * per_thread
    messages = [parse_line(line)["message"] for line in lines]
    for i in range(4):
        mine = [m for m in messages if m.startswith(f"thread {i} ")]
        assert mine == [f"thread {i} event {k} " + "x" * 300 for k in range(per_thread)]
