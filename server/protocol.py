"""The JSON-RPC stream on stdio, hardened: every request gets an answer and no input silences the server.

pygls's own reader trusts its input: a ``Content-Length`` of 2**63 or a frame shorter than it says leaves it
waiting forever, and a request whose params do not match the protocol's types is dropped without a reply.
Here a ``Framer`` finds message bodies in the byte stream and resynchronises on the next ``Content-Length``
header after garbage, and ``HardenedProtocol.decode`` answers a request whose params cannot be read with -32602
(InvalidParams), a request before ``initialize`` with -32002 (ServerNotInitialized), then hands the message
to pygls; an answer of the client that cannot be read fails the server's request it answers (never left
waiting). Before ``exit``, the requests in flight (``shutdown``) get to answer.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, BinaryIO

import cattrs
import cattrs.cols
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, default_converter

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_HEADER_BYTES = 8 * 1024
READ_CHUNK = 1024 * 1024
EXIT_GRACE_S = 2.0
_HEADER_START = re.compile(rb"Content-Length:", re.IGNORECASE)
_LENGTH = re.compile(rb"Content-Length: *(\d{1,20}) *\r\n", re.IGNORECASE)
_HEADER_LINES = re.compile(rb"(?:[A-Za-z-]+:[^\r\n]*\r\n)*[^\r\n]*\r?")     # header lines, the last one unfinished
_LINE_MAX = len(b"Content-Length: 99999999999999999999\r\n")
_PARTIAL_LENGTH = re.compile(                # the start of a Content-Length line, up to the end of the buffer
    rb"(?:" + b"".join(re.escape(bytes([c])) + b"(?:" for c in b"Content-Length:") + rb" *(?:\d+\r?)?"
    + b")?" * len(b"Content-Length:") + rb")\Z", re.IGNORECASE)
SERVER_NOT_INITIALIZED, INVALID_REQUEST, INVALID_PARAMS = -32002, -32600, -32602
_BEFORE_INITIALIZE = (types.INITIALIZE, types.EXIT)


class Framer:
    """Message bodies from a byte stream of ``Content-Length``-framed messages. Bytes that do not belong to a
    frame, a length beyond MAX_MESSAGE_BYTES, and a frame cut short by the next header (no JSON body can
    hold ``Content-Length: N\\r\\n``) are skipped, with a log line."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self._scanned = 0                # how far the pending body was searched for a next header

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next_body(self) -> bytes | None:
        while True:
            start = _HEADER_START.search(self.buffer)
            if start is None:
                if len(self.buffer) > MAX_HEADER_BYTES or not _HEADER_LINES.fullmatch(self.buffer):
                    self._skip(max(0, len(self.buffer) - len(b"Content-Length:")), "no message header")
                return None                  # else other headers (Content-Type) so far: wait for ours
            self._skip(start.start(), "bytes outside a message")
            end = self.buffer.find(b"\r\n\r\n")
            if end == -1:
                if len(self.buffer) > MAX_HEADER_BYTES:
                    self._skip(1, "an overlong header")
                    continue
                return None
            match = _LENGTH.match(self.buffer, 0, end + 2)
            length = int(match.group(1)) if match else -1
            if not 0 <= length <= MAX_MESSAGE_BYTES:
                self._skip(1, f"a bad header {bytes(self.buffer[:min(end, 80)])!r} (the limit is "
                              f"{MAX_MESSAGE_BYTES} bytes)")
                continue
            body_start = end + 4
            body_end = body_start + length
            scan_from = max(body_start, self._scanned - _LINE_MAX)
            cut = _LENGTH.search(self.buffer, scan_from, body_end + _LINE_MAX)     # a header may end past it
            if cut is not None and cut.start() < body_end:
                self._skip(cut.start(), "a message shorter than its Content-Length")
                continue
            if len(self.buffer) < body_end:
                self._scanned = len(self.buffer)
                return None
            partial = _PARTIAL_LENGTH.search(self.buffer, max(body_start, body_end - _LINE_MAX))
            if partial is not None and partial.start() < body_end:    # a header cut by the read: wait for it
                return None
            body = bytes(self.buffer[body_start:body_start + length])
            del self.buffer[:body_start + length]
            self._scanned = 0
            return body

    def _skip(self, count: int, why: str) -> None:
        if count <= 0:
            return
        if not self.buffer[:count].strip().lower().startswith(b"content-type"):      # a header before ours
            log.warning("skipped %d bytes of input: %s", count, why)
        del self.buffer[:count]
        self._scanned = 0


def strict_type(kind: type) -> Any:
    """A cattrs structure hook taking only values of ``kind`` as they are (True is not the int 1)."""
    def structure(value: Any, _: type) -> Any:
        if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
            raise TypeError(f"expected {kind.__name__}, not {type(value).__name__}")
        return value
    return structure


def strict_converter() -> Any:
    """pygls's converter, without cattrs's coercions of str, int and bool (``"uri": 5`` is not the URI "5",
    ``"line": "3"`` or ``true`` is not a line): a wrong-typed param is an InvalidParams error."""
    converter = default_converter()
    converter.register_structure_hook(str, strict_type(str))
    converter.register_structure_hook(int, strict_type(int))
    converter.register_structure_hook(bool, strict_type(bool))        # else bool fields get int's hook

    def strict_sequence(kind: Any) -> Any:
        elements = cattrs.cols.list_structure_factory(kind, converter)

        def structure(value: Any, cl: Any) -> Any:
            if not isinstance(value, list):
                raise TypeError(f"expected a list, not {type(value).__name__}")
            return elements(value, cl)
        return structure

    converter.register_structure_hook_factory(cattrs.cols.is_sequence, strict_sequence)
    return converter


class HardenedProtocol(LanguageServerProtocol):
    """pygls's protocol, fed by ``read_stdio``: answers what pygls would drop."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_seen = False
        self.client_request_ids: set[Any] = set()      # ids of the client's requests (pygls may still run them)

    def decode(self, body: bytes) -> Any | None:
        """The message in ``body``, structured by pygls; None when it was refused (and answered, if a request)."""
        try:
            raw = json.loads(body)
        except ValueError as e:          # UnicodeDecodeError is a ValueError
            log.warning("a message that is not JSON: %s", e)
            return None
        if not isinstance(raw, dict) or raw.get("jsonrpc") != "2.0":
            self._refuse(raw, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
            return None
        method = raw.get("method")
        if method is not None and not isinstance(method, str):
            self._refuse(raw, INVALID_REQUEST, "method must be a string")
            return None
        if not self.initialize_seen and method not in _BEFORE_INITIALIZE:
            if isinstance(raw.get("id"), (str, int)) and method is not None:
                self._refuse(raw, SERVER_NOT_INITIALIZED, "the server is not initialized: send initialize first")
            return None
        try:
            message = json.loads(body, object_hook=self.structure_message)
        except Exception as e:  # noqa: BLE001 - the params do not match the protocol's types
            why = _describe(e.__cause__ or e)
            if method is None and "id" in raw:      # the client's answer to our request: its waiter must not hang
                log.warning("an answer that does not match the protocol's types: %s", why)
                self._handle_response(raw["id"], error=types.ResponseError(
                    code=INVALID_PARAMS, message=f"the editor's answer could not be read: {why}"))
                return None
            self._refuse(raw, INVALID_PARAMS, f"invalid params for {method}: {why}")
            return None
        if method == types.INITIALIZE:
            self.initialize_seen = True
        if isinstance(raw.get("id"), (str, int)) and method is not None:
            self.client_request_ids = {i for i in self.client_request_ids if i in self._request_futures}
            self.client_request_ids.add(raw["id"])
        return message

    async def requests_done(self, timeout: float) -> None:
        """Wait (at most ``timeout``) until the client's requests in flight are answered, e.g. shutdown's
        before exit (pygls keeps a request's future until it answers)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline and any(not self._request_futures[i].done() for i in self.client_request_ids
                                              if i in self._request_futures):
            await asyncio.sleep(0.01)

    def _refuse(self, raw: Any, code: int, message: str) -> None:
        msg_id = raw.get("id") if isinstance(raw, dict) else None
        log.warning("refused a message (%s): %s", code, message)
        if isinstance(raw, dict) and "method" in raw and isinstance(msg_id, (str, int)) and \
                not isinstance(msg_id, bool):
            self._send_response(msg_id, error=types.ResponseError(code=code, message=message))


def _describe(error: BaseException) -> str:
    try:
        import cattrs
        if isinstance(error, cattrs.BaseValidationError):
            return "; ".join(cattrs.transform_error(error))[:500]
    except Exception:  # noqa: BLE001 - a description only
        pass
    return f"{type(error).__name__}: {error}"[:500]


async def read_stdio(protocol: HardenedProtocol, stdin: BinaryIO, stopped: Any) -> None:
    """Feed ``protocol`` from ``stdin`` until it ends (or ``stopped`` is set)."""
    loop = asyncio.get_running_loop()
    framer = Framer()
    read = getattr(stdin, "read1", stdin.read)
    while not stopped.is_set():
        data = await loop.run_in_executor(None, read, READ_CHUNK)
        if not data:
            break
        framer.feed(data)
        while (body := framer.next_body()) is not None:
            message = protocol.decode(body)
            if message is None:
                continue
            if getattr(message, "method", None) == types.EXIT:
                await protocol.requests_done(timeout=EXIT_GRACE_S)
            try:
                protocol.handle_message(message)
            except (SystemExit, KeyboardInterrupt):
                raise
            except Exception:  # noqa: BLE001 - one message must never end the server
                log.exception("could not handle a message")
            await asyncio.sleep(0)           # the handlers of this message start before the next is read
