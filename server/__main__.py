"""``python -m adaexplore_server``: the language server on stdio.

The protocol owns the real stdout. Anything else that writes to fd 1 — a stray print, a library banner, a
child process inheriting it — would corrupt the JSON-RPC stream, so the server keeps a private duplicate of
fd 1 for the protocol and points fd 1 (and sys.stdout) at stderr before anything else runs.
"""
from __future__ import annotations

import gc
import logging
import os
import sys


def main() -> int:
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.basicConfig(level=os.environ.get("ADAEXPLORE_LOG_LEVEL", "WARNING"), stream=sys.stderr)
    from .server import create_server

    server = create_server()
    gc.freeze()            # start-up objects leave the collector's view: shorter full collections later
    server.start_io(stdin=sys.stdin.buffer, stdout=protocol_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
