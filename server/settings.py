"""The server's settings: section ``adaexplore`` of workspace/configuration (fallback: initializationOptions,
same keys), read through cattrs. A value of the wrong type or out of range gets a message and its default."""
from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cattrs

from adaexplore_core.jsonstore import default_cache_dir

from .protocol import strict_type

MAX_STEPS = 10_000
PROPOSERS = ("builtin", "llm")
CLIENT_KEYS = {"base_url": "baseUrl", "cache_dir": "cacheDir"}     # field -> the key clients send


@dataclass(frozen=True, kw_only=True)
class Settings:
    proposer: Literal["builtin", "llm"] = "builtin"
    steps: int = 20
    device: str = "auto"
    model: str = ""
    base_url: str = ""
    cache_dir: str = ""

    def cache_path(self) -> Path:
        return Path(self.cache_dir).expanduser() if self.cache_dir else default_cache_dir()


def _strict_converter() -> cattrs.Converter:
    """cattrs, without its coercions: "20" is not an int and 5 is not a str."""
    converter = cattrs.Converter()
    converter.register_structure_hook(int, strict_type(int))
    converter.register_structure_hook(str, strict_type(str))
    return converter


_converter = _strict_converter()
_TYPES = typing.get_type_hints(Settings)
_CHECKS = {
    "steps": (lambda v: 1 <= v <= MAX_STEPS, f"a whole number from 1 to {MAX_STEPS}"),
    "device": (lambda v: _valid_device(v), "auto, cpu, cuda or cuda:N"),
    "proposer": (lambda v: True, f"one of: {', '.join(PROPOSERS)}"),
}


def read_settings(data: Any) -> tuple[Settings, list[str]]:
    """Settings from client data, and a message for each value that was refused (its default is kept)."""
    if data is None:
        return Settings(), []
    if not isinstance(data, dict):
        return Settings(), [f"adaexplore settings must be an object, not {data!r}; the defaults are used"]
    accepted, problems = {}, []
    for field in dataclasses.fields(Settings):
        key = CLIENT_KEYS.get(field.name, field.name)
        if data.get(key) is None:
            continue
        value, (check, wanted) = data[key], _CHECKS.get(field.name, (lambda v: True, "a string"))
        try:
            structured = _converter.structure(value, _TYPES[field.name])
            ok = check(structured)
        except Exception:  # noqa: BLE001 - cattrs raises several kinds; each means "refused"
            ok = False
        if not ok:
            problems.append(f"adaexplore.{key} must be {wanted}, not {value!r} (the default "
                            f"{getattr(Settings(), field.name)!r} is used)")
            continue
        accepted[field.name] = structured
    return Settings(**accepted), problems


def _valid_device(value: str) -> bool:
    v = value.strip().lower()
    return v in ("auto", "cpu", "cuda") or (v.startswith("cuda:") and v[5:].isdigit())
