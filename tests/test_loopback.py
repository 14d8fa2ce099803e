"""The tests' loopback server (``loopback.py``) itself."""

from __future__ import annotations

import pytest

from loopback import LoopbackServer


def _error(server: LoopbackServer, exc: BaseException) -> None:
    """Have the server handle ``exc`` as if a request's handler had raised it."""
    try:
        raise exc
    except BaseException:
        server._httpd.handle_error(None, ("127.0.0.1", 1))


def test_a_client_hanging_up_is_not_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """A client that resets the connection (a cancelled stream) leaves no traceback in the test output;
    any other error of a handler still does."""
    with LoopbackServer() as server:
        _error(server, ConnectionResetError(104, "Connection reset by peer"))
        _error(server, BrokenPipeError(32, "Broken pipe"))
        assert capsys.readouterr().err == ""
        _error(server, ValueError("a handler's own defect"))
        assert "ValueError: a handler's own defect" in capsys.readouterr().err
