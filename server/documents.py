"""The documents requests are about: one spelling per URI, the text the analysis may read, and where it
came from.

Clients spell one file's URI several ways (``file:///c%3A/My%20Project/m.py``, ``file:///C:/My Project/m.py``);
``canonical_uri`` is the one spelling the server keys documents, jobs and cached results by: itself a URI (so
canonical twice is canonical once, and ``a%23b.py`` stays a file name, not ``a`` with a fragment). Messages to
the client keep the spelling it opened the document with.

A URI the client has not opened is read from disk only when it is a regular file of at most
MAX_UNOPENED_BYTES (never ``/dev/zero``, a FIFO or a directory). Lone surrogates (JSON allows ``"\\ud800"``)
become U+FFFD, which takes the same room in every position encoding.
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

MAX_UNOPENED_BYTES = 4 * 1024 * 1024
MAX_ANALYSED_CHARS = 1_000_000               # larger documents are not analysed (one diagnostic says so):
MAX_ANALYSED_LINES = 50_000                   # tree-sitter takes about a second at these sizes
_DRIVE = re.compile(r"^/([A-Za-z]):")
_PATH_SAFE = "/:@!$&'()*+,;=~"              # RFC 3986 path characters that need no escape (not "%", "?", "#")
_SURROGATE = re.compile("[\ud800-\udfff]")


class DocumentError(Exception):
    """The request's document cannot be read; the message says why."""


@dataclass(frozen=True)
class Document:
    uri: str                   # as the client spells it
    key: str                   # canonical_uri(uri)
    text: str
    version: int | None

    @property
    def too_large(self) -> bool:
        return len(self.text) > MAX_ANALYSED_CHARS or self.text.count("\n") >= MAX_ANALYSED_LINES


def canonical_uri(uri: str) -> str:
    """A ``file:`` URI with its path decoded and encoded again one way, a Windows drive letter in lower case
    (``file:///c:/...``) and ``localhost`` dropped; a URI of another scheme as it is."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        return uri
    path = _DRIVE.sub(lambda m: f"/{m.group(1).lower()}:", unquote(parts.path))
    host = parts.netloc.lower()
    return urlunsplit(("file", "" if host == "localhost" else host, quote(path, safe=_PATH_SAFE), parts.query,
                       parts.fragment))


def uri_to_path(uri: str) -> Path | None:
    """The local path of a ``file:`` URI (a drive path stays ``c:/...``, a UNC URI is ``//host/share/...`` on
    Windows); None for other schemes and, elsewhere, for a file on another host."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        return None
    path = unquote(parts.path)
    if parts.netloc.lower() not in ("", "localhost"):
        return Path(f"//{parts.netloc}{path}") if os.name == "nt" else None
    if _DRIVE.match(path) and os.name == "nt":
        path = path[1:]
    return Path(path)


def clean_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (they cannot be encoded as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


class Documents:
    """Which URIs the client has open: canonical URI -> the URI as the client spelled it."""

    def __init__(self) -> None:
        self.opened: dict[str, str] = {}

    def did_open(self, uri: str) -> None:
        self.opened[canonical_uri(uri)] = uri

    def did_close(self, uri: str) -> None:
        self.opened.pop(canonical_uri(uri), None)

    def client_uri(self, uri: str) -> str:
        """The spelling the client opened ``uri`` with (``uri`` itself when it is not open)."""
        return self.opened.get(canonical_uri(uri), uri)

    def is_open(self, uri: str) -> bool:
        return canonical_uri(uri) in self.opened


def read_unopened(uri: str) -> str:
    """The text of a document the client has not opened: a regular file of at most MAX_UNOPENED_BYTES."""
    path = uri_to_path(uri)
    if path is None:
        raise DocumentError(f"the document {uri} is not open (and is not a file the server could read)")
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise DocumentError(f"the document {uri} is not open and is not a regular file")
        with open(path, "rb", opener=_open_nonblocking) as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise DocumentError(f"the document {uri} is not open and is not a regular file")
            if info.st_size > MAX_UNOPENED_BYTES:
                raise DocumentError(f"the document {uri} is not open and is larger than "
                                    f"{MAX_UNOPENED_BYTES // (1024 * 1024)} MB: open it in the editor first")
            data = f.read(MAX_UNOPENED_BYTES + 1)
    except OSError as e:
        raise DocumentError(f"the document {uri} is not open and cannot be read ({e.strerror or e})") from e
    if len(data) > MAX_UNOPENED_BYTES:
        raise DocumentError(f"the document {uri} grew past {MAX_UNOPENED_BYTES // (1024 * 1024)} MB while read")
    return clean_text(data.decode("utf-8", errors="replace"))


def _open_nonblocking(path: str, flags: int) -> int:
    """Open without blocking on a FIFO (its writer may never come)."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
