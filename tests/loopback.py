"""A loopback HTTP server for tests that stream recorded bodies through the official SDK clients.

Stdlib only (``http.server`` + threads), bound to ``127.0.0.1`` on a free port. Each request is
answered with the next queued :class:`Reply` (the last one repeats): the status line and headers,
then the body with ``Transfer-Encoding: chunked``, one HTTP chunk per given piece, each flushed
on its own so the client sees the pieces as they were split. A reply can

- cut the connection abruptly after ``cut_after`` body bytes (no terminating chunk, so the
  client's HTTP layer reports an incomplete body: ``httpx``'s ``RemoteProtocolError``);
- hold after ``hold_after`` body bytes until the client closes the connection (or
  :meth:`LoopbackServer.release` is called), to observe a client that stops reading early.

Every request is recorded as an :class:`Exchange` (method, path, headers, body, body bytes
written, and how it ended). Body builders: :func:`sse` (SSE frames, optional ``event:`` lines
and ``data: [DONE]``), :func:`ndjson`, and :func:`split` to cut a body into pieces.

    with LoopbackServer(Reply(split(sse(events, event_field="type"), 7))) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0)
        ...
        assert server.exchanges[0].completed
"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Exchange", "LoopbackServer", "Reply", "ndjson", "split", "sse"]


def sse(
    payloads: Iterable[Any],
    *,
    event_field: str | None = None,
    done: bool = False,
    newline: str = "\n",
    comments: Sequence[str] = (),
) -> bytes:
    """SSE frames for ``payloads`` (dicts are JSON-encoded compactly, strings sent as they are).

    ``event_field``: add an ``event:`` line holding that field of each dict (Anthropic and
    Responses use ``"type"``). ``done``: end with ``data: [DONE]`` (Chat Completions).
    ``newline``: ``"\\r\\n"`` for servers that frame with CRLF (Gemini). ``comments`` are sent first
    as ``: comment`` lines (OpenRouter's keep-alives).
    """
    nl = newline
    out = [f": {c}{nl}{nl}" for c in comments]
    for payload in payloads:
        data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        if event_field is not None and isinstance(payload, dict):
            out.append(f"event: {payload[event_field]}{nl}")
        out.append(f"data: {data}{nl}{nl}")
    if done:
        out.append(f"data: [DONE]{nl}{nl}")
    return "".join(out).encode()


def ndjson(payloads: Iterable[Any]) -> bytes:
    """One compact JSON object per line (Ollama)."""
    return "".join(json.dumps(p, ensure_ascii=False, separators=(",", ":")) + "\n" for p in payloads).encode()


def split(body: bytes, size: int | Sequence[int]) -> list[bytes]:
    """Cut ``body`` into pieces of ``size`` bytes, or of the given sizes in turn (cycled)."""
    sizes = [size] if isinstance(size, int) else list(size)
    if not sizes or min(sizes) <= 0:
        raise ValueError("piece sizes must be positive")
    pieces, pos, i = [], 0, 0
    while pos < len(body):
        n = sizes[i % len(sizes)]
        pieces.append(body[pos:pos + n])
        pos += n
        i += 1
    return pieces


@dataclass
class Reply:
    """One response: ``pieces`` of body written and flushed one at a time."""

    pieces: Sequence[bytes]
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # body bytes; then the socket is closed without ending the body
    hold_after: int | None = None  # body bytes; then wait until the client closes (or release())

    @classmethod
    def body(cls, body: bytes, piece: int | Sequence[int] = 64, **kw: Any) -> Reply:
        """A reply from a whole body split into pieces (see :func:`split`)."""
        return cls(split(body, piece), **kw)


@dataclass
class Exchange:
    """One request and how its response went."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    bytes_written: int = 0  # body bytes written (chunk framing not counted)
    completed: bool = False  # the whole body and the terminating chunk were written
    cut: bool = False  # the server cut the connection on purpose (cut_after)
    client_closed: bool = False  # the client closed the connection before the body ended
    ended: threading.Event = field(default_factory=threading.Event, repr=False)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # a keep-alive connection left idle ends its thread
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        owner = self.server.owner
        exchange = Exchange(self.command, self.path, dict(self.headers.items()), body)
        reply = owner._next_reply(exchange)
        try:
            self._respond(reply, exchange)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            exchange.client_closed = True
            self.close_connection = True
        finally:
            exchange.ended.set()

    def _respond(self, reply: Reply, exchange: Exchange) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()
        wfile = self.wfile
        hold, cut = reply.hold_after, reply.cut_after
        for piece in _split_at(reply.pieces, [b for b in (hold, cut) if b is not None]):
            if hold is not None and exchange.bytes_written >= hold:
                hold = None
                if self._hold(exchange):
                    return
            if cut is not None and exchange.bytes_written >= cut:
                self._cut(exchange)
                return
            wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            wfile.flush()
            exchange.bytes_written += len(piece)
        if hold is not None and self._hold(exchange):
            return
        if cut is not None:
            self._cut(exchange)
            return
        wfile.write(b"0\r\n\r\n")
        wfile.flush()
        exchange.completed = True

    def _cut(self, exchange: Exchange) -> None:
        """Close mid-body: send FIN without the terminating chunk, and drop the connection."""
        exchange.cut = True
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _hold(self, exchange: Exchange) -> bool:
        """Wait until the client closes (True) or the server is released (False)."""
        owner, sock = self.server.owner, self.connection
        while not owner._released.is_set():
            readable, _, _ = select.select([sock], [], [], 0.02)
            if readable:
                try:
                    data = sock.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    exchange.client_closed = True
                    self.close_connection = True
                    return True
        return False


def _split_at(pieces: Sequence[bytes], offsets: list[int]) -> Iterable[bytes]:
    """The non-empty pieces, with extra cuts at the given absolute body offsets."""
    pos = 0
    for piece in pieces:
        end = pos + len(piece)
        for offset in sorted(o for o in offsets if pos < o < end):
            yield piece[: offset - pos]
            piece, pos = piece[offset - pos:], offset
        if piece:
            yield piece
        pos = end


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: LoopbackServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-reply (a cancelled stream: what several tests do) is not an error
        of the server's; anything else is printed as the base class does."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class LoopbackServer:
    """Serves queued :class:`Reply` objects on ``127.0.0.1:<free port>`` from a background thread."""

    def __init__(self, *replies: Reply) -> None:
        self._replies: list[Reply] = list(replies)
        self._lock = threading.Lock()
        self._released = threading.Event()
        self.exchanges: list[Exchange] = []
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (add ``/v1`` for OpenAI-style base URLs)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def bytes_written(self) -> int:
        """Body bytes written over all exchanges."""
        return sum(e.bytes_written for e in self.exchanges)

    def queue(self, *replies: Reply) -> None:
        """Add replies for the next requests."""
        with self._lock:
            self._replies.extend(replies)

    def release(self) -> None:
        """Let every held reply (``hold_after``) continue."""
        self._released.set()

    def _next_reply(self, exchange: Exchange) -> Reply:
        with self._lock:
            self.exchanges.append(exchange)
            if not self._replies:
                return Reply([b'{"error": "no reply queued"}'], status=500, content_type="application/json")
            return self._replies.pop(0) if len(self._replies) > 1 else self._replies[0]

    def wait(self, n: int = 1, timeout: float = 10.0) -> Exchange:
        """Wait until exchange ``n - 1`` has ended; return it. Raises ``TimeoutError``."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self.exchanges) >= n:
                    exchange = self.exchanges[n - 1]
                    break
            if time.monotonic() > deadline:
                raise TimeoutError(f"no request {n} within {timeout}s")
            time.sleep(0.01)
        if not exchange.ended.wait(max(0.0, deadline - time.monotonic())):
            raise TimeoutError(f"exchange {n} did not end within {timeout}s")
        return exchange

    def close(self) -> None:
        self._released.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
