"""Which out-of-band errors the server shows the user: everything pygls reports, except the race of a request the
client cancelled (Neovim cancels a pending code-lens request when it asks again), raw or as pygls wraps it."""
from __future__ import annotations

import asyncio
import concurrent.futures

from pygls.exceptions import FeatureNotificationError, JsonRpcInternalError

from adaexplore_server.server import create_server, is_cancelled_request_race


def _raised(make_error) -> Exception:
    try:
        make_error()
    except Exception as e:  # noqa: BLE001 - the test wants the exception itself
        return e
    raise AssertionError("nothing was raised")


def _cancelled_future_set() -> None:
    future: concurrent.futures.Future = concurrent.futures.Future()
    future.cancel()
    future.set_result(None)                       # what pygls does when the handler finishes after the cancel


def _wrapped(error: Exception) -> JsonRpcInternalError:
    return JsonRpcInternalError.of((type(error), error, error.__traceback__))


def test_the_cancelled_request_race_is_recognised_raw_and_wrapped():
    race = _raised(_cancelled_future_set)
    assert is_cancelled_request_race(race)
    assert is_cancelled_request_race(_wrapped(race))
    assert is_cancelled_request_race(asyncio.InvalidStateError("invalid state"))


def test_other_errors_are_not_taken_for_it_even_when_their_text_looks_alike():
    lookalike = RuntimeError("CANCELLED: <Future at 0x1 state=cancelled>")
    for error in (lookalike, _wrapped(lookalike), ValueError("boom"), _wrapped(KeyError("k"))):
        assert not is_cancelled_request_race(error), error


def test_the_server_shows_real_errors_and_drops_the_race(monkeypatch):
    server = create_server()
    shown: list[str] = []
    monkeypatch.setattr(server, "window_show_message", lambda params: shown.append(params.message))
    monkeypatch.setattr(server, "window_log_message", lambda params: None)
    server.report_server_error(_wrapped(_raised(_cancelled_future_set)), FeatureNotificationError)
    assert shown == []
    server.report_server_error(_wrapped(ValueError("the analysis failed")), FeatureNotificationError)
    assert len(shown) == 1 and "the analysis failed" in shown[0], shown
