"""Events of a search job, one JSON object per line: what the language server reads while a job runs.

Every event has ``event`` (its type), ``time`` (UTC, ISO 8601) and ``job`` (the job id). The fields of each
type are listed in ``SCHEMA`` (name -> allowed Python types); ``validate`` checks an event against it.
Optional fields may be ``None``. Readers must ignore fields they do not know (new ones may be added).
A job ends with ``job_finished``, or with an ``error`` whose ``fatal`` is true (it could not run).
"""
from __future__ import annotations

import json
from typing import Any

NUMBER = (int, float)
OPTIONAL_NUMBER = (int, float, type(None))
OPTIONAL_STR = (str, type(None))

SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "job_started": {"task": (str,), "steps": (int,), "proposer": (str,), "devices": (list,), "out": (str,),
                    "resumed_steps": (int,)},
    "candidate_judged": {"step": (int,), "steps": (int,), "node": (int,), "parent": (int,), "kind": (str,),
                         "verdict": (str,), "stage": (str,), "reason": (str,), "description": (str,),
                         "reward": NUMBER, "speedup_vs_eager": OPTIONAL_NUMBER,
                         "speedup_vs_compile": OPTIONAL_NUMBER, "duplicate": (bool,), "seconds": NUMBER},
    "best_improved": {"step": (int,), "node": (int,), "speedup_vs_eager": OPTIONAL_NUMBER,
                      "speedup_vs_compile": OPTIONAL_NUMBER, "timed": (bool,), "description": (str,),
                      "gpu": OPTIONAL_STR},
    "best_retimed": {"node": (int,), "valid": (bool,), "speedup_vs_eager": OPTIONAL_NUMBER,
                     "speedup_vs_compile": OPTIONAL_NUMBER, "first_speedup_vs_eager": OPTIONAL_NUMBER},
    "rule_learned": {"rule": (str,), "score": NUMBER},
    "llm_usage": {"requests": (int,), "prompt_tokens": (int,), "completion_tokens": (int,), "retries": (int,),
                  "seconds": NUMBER, "cost_usd": OPTIONAL_NUMBER},
    "job_finished": {"steps": (int,), "valid": (int,), "valid_share": NUMBER, "best_node": (int, type(None)),
                     "speedup_vs_eager": OPTIONAL_NUMBER, "speedup_vs_compile": OPTIONAL_NUMBER,
                     "timed": (bool,), "interrupted": (bool,), "out": (str,)},
    "error": {"message": (str,), "fatal": (bool,)},
}
COMMON = {"event": (str,), "time": (str,), "job": (str,)}


class EventError(ValueError):
    """An event that does not match the schema."""


def validate(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` itself when it matches the schema; else EventError saying which field is wrong."""
    kind = event.get("event")
    if kind not in SCHEMA:
        raise EventError(f"unknown event type {kind!r}")
    for name, types in {**COMMON, **SCHEMA[kind]}.items():
        if name not in event:
            raise EventError(f"{kind}: missing field {name!r}")
        value = event[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise EventError(f"{kind}: field {name!r} has type {type(value).__name__}")
    return event


def parse_line(line: str) -> dict[str, Any]:
    """One JSON line into a validated event."""
    try:
        event = json.loads(line)
    except json.JSONDecodeError as e:
        raise EventError(f"not JSON: {e}") from e
    if not isinstance(event, dict):
        raise EventError("an event is a JSON object")
    return validate(event)
