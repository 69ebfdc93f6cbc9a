"""The line protocol between the pool (parent) and a judge worker (child), and the worker's environment.

Parent -> worker: ``judge`` requests, and ``go`` when device access asked for is granted.
Worker -> parent: ``ready`` (with the environment fingerprint), ``clock`` (pause/resume the candidate's
timeout while the worker does the task's own work or waits for the device), ``acquire`` (device access,
shared for trials or exclusive for timing), ``release`` and ``verdict``. One JSON object per line on
private file descriptors: whatever candidate code prints goes to /dev/null (stdout) or the worker's log
(stderr), never into the protocol.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

# Environment variables never passed to a worker: anything that looks like a credential.
SECRET_PATTERN = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|^OPENAI_|^AWS_|"
                            r"^AZURE_|^GOOGLE_|^GH_|^GITHUB_|^HF_|^ANTHROPIC_", re.IGNORECASE)


def scrubbed_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of ``environ`` without anything that looks like a secret."""
    environ = dict(os.environ if environ is None else environ)
    return {k: v for k, v in environ.items() if not SECRET_PATTERN.search(k)}


@dataclass
class JudgeRequest:
    """One candidate to judge against one task on one device."""

    id: int
    task: dict[str, Any]                 # TaskSpec.to_dict()
    candidate_source: str
    device: str                          # "cpu" or "cuda:N"
    trials: int = 5
    seed: int = 0                        # drawn per judge run by the parent; trial seeds derive from it
    timing: bool = True
    tolerance: dict[str, float] | None = None   # {"atol", "rtol", "rel_l2"} to override the dtype defaults
    candidate_name: str = "candidate.py"
    nonce: str = ""                      # echoed with the verdict: a line without it is not the worker's
    options: dict[str, Any] = field(default_factory=dict)

    def to_message(self) -> dict[str, Any]:
        return {"type": "judge", **self.__dict__}

    @classmethod
    def from_message(cls, msg: dict[str, Any]) -> "JudgeRequest":
        msg = {k: v for k, v in msg.items() if k != "type"}
        return cls(**msg)


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def decode(line: bytes) -> dict[str, Any]:
    """One message; ValueError for anything that is not a JSON object."""
    message = json.loads(line.decode())
    if not isinstance(message, dict):
        raise ValueError("a protocol message must be a JSON object")
    return message
