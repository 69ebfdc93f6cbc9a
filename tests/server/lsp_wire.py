"""A small LSP client that speaks raw bytes to the real server over stdio: for what pytest-lsp cannot send
(broken framing, wrong-typed params, requests before initialize) and for answers it cannot delay."""
from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

ROOT = Path(__file__).resolve().parents[2]
Handler = Callable[[Any], Awaitable[Any] | Any]


def frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


class WireClient:
    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        self.handlers: dict[str, Handler] = {"workspace/configuration": lambda params: [{}],
                                             "window/workDoneProgress/create": lambda params: None,
                                             "workspace/codeLens/refresh": lambda params: None,
                                             "workspace/inlayHint/refresh": lambda params: None}
        self.notifications: list[dict] = []
        self.requests: list[dict] = []          # requests the server sent
        self._pending: dict[Any, asyncio.Future] = {}
        self._ids = itertools.count(1)

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "adaexplore_server", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=self.env, limit=64 * 1024 * 1024)
        self._reader = asyncio.ensure_future(self._read())

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        self._reader.cancel()

    def write(self, data: bytes) -> None:
        self.process.stdin.write(data)

    def notify(self, method: str, params: Any) -> None:
        self.write(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    async def request(self, method: str, params: Any = None, timeout: float = 30.0) -> dict:
        """The whole response message ({"result": ...} or {"error": ...})."""
        msg_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        self.write(frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))
        return await asyncio.wait_for(future, timeout)

    async def timed_request(self, method: str, params: Any = None, timeout: float = 30.0) -> tuple[dict, float]:
        start = time.perf_counter()
        response = await self.request(method, params, timeout)
        return response, time.perf_counter() - start

    async def initialize(self, capabilities: dict | None = None, options: Any = None) -> dict:
        response = await self.request("initialize", {"processId": None, "rootUri": None,
                                                     "capabilities": capabilities or {},
                                                     "initializationOptions": options})
        self.notify("initialized", {})
        return response

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                              "version": version, "text": text}})

    def messages(self, method: str) -> list[dict]:
        return [n["params"] for n in self.notifications if n.get("method") == method]

    async def _read(self) -> None:
        stdout = self.process.stdout
        while True:
            header = await stdout.readuntil(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in header.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            message = json.loads(await stdout.readexactly(length))
            if "method" in message and "id" in message:
                self.requests.append(message)
                asyncio.ensure_future(self._answer(message))
            elif "method" in message:
                self.notifications.append(message)
            else:
                future = self._pending.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message)

    async def _answer(self, message: dict) -> None:
        handler = self.handlers.get(message["method"])
        if handler is None:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not here"}}
        else:
            result = handler(message.get("params"))
            if asyncio.iscoroutine(result):
                result = await result
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        self.write(frame(reply))


async def wait_until(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    return predicate()
