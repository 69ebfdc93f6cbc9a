"""URIs the server keys documents by (documents.py): one spelling per file, canonical twice is canonical once,
and the path of a URI is the file's."""
from __future__ import annotations

from pathlib import Path

import pytest

from adaexplore_server.documents import canonical_uri, uri_to_path

SPELLINGS_OF_ONE_FILE = [
    ("file:///c%3A/My%20Project/m.py", "file:///C:/My Project/m.py", "file:///c:/My%20Project/m.py"),
    ("file:///tmp/mod%C3%A8le.py", "file:///tmp/modèle.py"),
    ("file://localhost/tmp/x.py", "file:///tmp/x.py", "FILE:///tmp/x.py"),
]


@pytest.mark.parametrize("spellings", SPELLINGS_OF_ONE_FILE)
def test_spellings_of_one_file_share_one_key(spellings):
    assert len({canonical_uri(u) for u in spellings}) == 1, [canonical_uri(u) for u in spellings]


@pytest.mark.parametrize("uri", ["file:///tmp/a%2541.py", "file:///tmp/100%25%20done.py", "file:///tmp/a%23b.py",
                                 "file:///c%3A/x%3Fy.py", "untitled:Untitled%201", *sum(SPELLINGS_OF_ONE_FILE, ())])
def test_canonical_twice_is_canonical_once(uri):
    assert canonical_uri(canonical_uri(uri)) == canonical_uri(uri)


def test_escaped_reserved_characters_stay_part_of_the_file_name():
    assert canonical_uri("file:///tmp/a%23b.py") != canonical_uri("file:///tmp/a#b.py")
    assert uri_to_path(canonical_uri("file:///tmp/a%23b.py")) == Path("/tmp/a#b.py")
    assert uri_to_path(canonical_uri("file:///tmp/what%3F.py")) == Path("/tmp/what?.py")
    assert uri_to_path(canonical_uri("file:///tmp/a%2541.py")) == Path("/tmp/a%41.py")


def test_other_schemes_and_hosts():
    assert canonical_uri("vscode-notebook-cell:/nb.ipynb#W0sZmlsZQ%3D%3D") == \
        "vscode-notebook-cell:/nb.ipynb#W0sZmlsZQ%3D%3D"
    assert uri_to_path("untitled:Untitled-1") is None
    assert uri_to_path("file://localhost/tmp/x.py") == Path("/tmp/x.py")
    assert canonical_uri("file://Server/share/x.py") == "file://server/share/x.py"
    if Path("/").drive == "":                      # POSIX: a file on another host is not a local path
        assert uri_to_path("file://server/share/x.py") is None
