"""The framer of the stdio stream (protocol.py), on bytes: whole messages out, garbage skipped, and the next
valid header found again."""
from __future__ import annotations

from adaexplore_server.protocol import MAX_MESSAGE_BYTES, Framer


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def bodies(*chunks: bytes) -> list[bytes]:
    framer, found = Framer(), []
    for chunk in chunks:
        framer.feed(chunk)
        while (body := framer.next_body()) is not None:
            found.append(body)
    return found


def test_messages_split_across_reads_come_out_whole():
    data = frame(b'{"a": 1}') + b"Content-Length: 8\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n" + b'{"b": 2}'
    assert bodies(*(data[i:i + 3] for i in range(0, len(data), 3))) == [b'{"a": 1}', b'{"b": 2}']


def test_garbage_before_a_header_is_skipped():
    assert bodies(b"junk\r\n\r\nmore junk" + frame(b"{}")) == [b"{}"]


def test_a_length_beyond_the_limit_is_skipped():
    too_long = b"Content-Length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1)
    assert bodies(too_long + frame(b"{}")) == [b"{}"]
    assert bodies(b"Content-Length: 9223372036854775808\r\n\r\n", frame(b"{}")) == [b"{}"]


def test_a_message_cut_short_by_the_next_header_is_dropped():
    assert bodies(b'Content-Length: 500\r\n\r\n{"short', frame(b'{"next": 1}')) == [b'{"next": 1}']


def test_an_endless_header_does_not_grow_the_buffer():
    framer = Framer()
    for _ in range(100):
        framer.feed(b"Content-Length: 5" + b" " * 10_000)
        assert framer.next_body() is None
    assert len(framer.buffer) < 20_000


def test_a_short_message_whose_window_ends_inside_the_next_header_loses_only_itself():
    """Whatever the bad length, the next header may straddle the end of the bad message's window: the valid
    message after it must still come out, fed at once or byte by byte."""
    short, following = b'{"short": 1}', frame(b'{"next": 1}')
    for declared in range(len(short) + 1, len(short) + len(following) + 5):
        data = b"Content-Length: %d\r\n\r\n" % declared + short + following
        assert bodies(data) == [b'{"next": 1}'], declared
        assert bodies(*(data[i:i + 1] for i in range(len(data)))) == [b'{"next": 1}'], declared


def test_a_valid_message_is_not_held_back_for_its_successor():
    framer = Framer()
    framer.feed(frame(b'{"a": 1}') + b"Content-Le")
    assert framer.next_body() == b'{"a": 1}'


def test_a_content_type_header_first_is_no_garbage(caplog):
    data = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(b'{"a": 1}')
    for size in (1, 7, len(data)):
        caplog.clear()
        assert bodies(*(data[i:i + size] for i in range(0, len(data), size))) == [b'{"a": 1}']
        assert "skipped" not in caplog.text, size
