"""An OpenAI-compatible chat-completions server on 127.0.0.1 with scripted replies, for tests that go
through the real ``openai`` client and real HTTP.

    with FakeOpenAI() as server:
        server.script(reply("```python\\n...\\n```"), status(429), reply("..."), delay(5.0, reply("...")))
        ... OpenAI(base_url=server.base_url, api_key="test") ...
        server.requests    # every request body received (parsed JSON), in order

A script entry is used once per request, in order; when the script runs out, ``default`` answers (a reply,
or None: HTTP 500 "script exhausted"). A callable entry gets the request body and returns an entry.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Entry:
    status: int = 200
    content: str = ""
    delay_s: float = 0.0
    body: str | None = None            # a raw body instead of a chat completion (garbage tests)
    prompt_tokens: int = 100
    completion_tokens: int = 50


def reply(content: str, prompt_tokens: int = 100, completion_tokens: int = 50) -> Entry:
    return Entry(content=content, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def status(code: int, message: str = "scripted error") -> Entry:
    return Entry(status=code, body=json.dumps({"error": {"message": message, "type": "scripted", "code": code}}))


def delay(seconds: float, entry: Entry) -> Entry:
    return Entry(status=entry.status, content=entry.content, delay_s=seconds, body=entry.body,
                 prompt_tokens=entry.prompt_tokens, completion_tokens=entry.completion_tokens)


def raw(body: str, code: int = 200) -> Entry:
    return Entry(status=code, body=body)


class FakeOpenAI:
    def __init__(self, default: Entry | Callable[[dict], Entry] | None = None) -> None:
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._script: list[Entry | Callable[[dict], Entry]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:   # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                entry = fake._next(body, dict(self.headers), self.path)
                if entry.delay_s:
                    time.sleep(entry.delay_s)
                payload = entry.body if entry.body is not None else json.dumps(completion(body, entry))
                data = payload.encode()
                try:
                    self.send_response(entry.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):   # the client gave up (timeout tests)
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, *entries: Entry | Callable[[dict], Entry]) -> None:
        with self._lock:
            self._script.extend(entries)

    def _next(self, body: dict, headers: dict[str, str], path: str) -> Entry:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            entry = self._script.pop(0) if self._script else self.default
        if not path.endswith("/chat/completions"):
            return status(404, f"no route {path}")
        if callable(entry):
            entry = entry(body)
        return entry if entry is not None else status(500, "script exhausted")

    def __enter__(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()


def completion(request: dict, entry: Entry) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", "test-model"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": entry.content}}],
        "usage": {"prompt_tokens": entry.prompt_tokens, "completion_tokens": entry.completion_tokens,
                  "total_tokens": entry.prompt_tokens + entry.completion_tokens},
    }
