"""Raw stream text to wire items: Server-Sent Events (every provider but Ollama) or NDJSON (Ollama, recordings).

:class:`WireDecoder` takes text as it arrives (``str``, or UTF-8 ``bytes`` as HTTP clients give
them, decoded incrementally so a character split across reads is kept until it is whole), in chunks
of any size or as lines, and returns the decoded JSON value of each complete event, one event at a
time: it holds only the unfinished line and the ``data`` of the event being read, each at most
``max_event`` characters. Each character is scanned once, however the input is cut: the unfinished
line is kept as its pieces and joined once, when its line ending arrives. The format is told from
the first non-blank line: a line that starts with an SSE field (``data:``, ``event:``, ``id:``,
``retry:``) or a comment (``:``) means SSE, anything else NDJSON (one JSON value a line).

SSE follows the WHATWG rules: a byte-order mark opening the stream is ignored (NDJSON too); lines
end with CRLF, LF or CR; ``data`` lines of one event are joined with ``\\n`` and the event is
dispatched at the blank line that ends it; comments, ``event``, ``id``, ``retry`` and unknown
fields carry no payload here (every provider repeats the event name inside its JSON); ``[DONE]`` is
dropped. Two leniencies for recordings and proxies: an event still open when the input ends is
dispatched, and an event whose joined ``data`` is not JSON but whose lines each are (a writer that
left out the blank lines) gives one value per line. A JSON line outside any ``data`` field (an
error body) is decoded as is.

Text that is not JSON raises :class:`~argstream.providers.ProviderProtocolError` naming the
line; so do bytes that are not UTF-8, input that ends inside a UTF-8 character, and an event or
line longer than ``max_event``.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ._common import ProviderProtocolError

__all__ = ["WireDecoder", "iter_wire", "read_wire"]

_NEWLINE = re.compile(r"\r\n|\r|\n")
_SSE_FIELDS = ("data:", "event:", "id:", "retry:", ":", "data", "event")
_DONE = "[DONE]"
_BYTES = (bytes, bytearray, memoryview)
#: the scanner ``json.loads`` runs (its default decoder's: C when ``json`` has its accelerator)
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set by JSONDecoder.__init__; no stub names it


def _loads(text: str) -> Any:
    """``json.loads(text)``: the scanner called directly when ``text`` is one value and nothing else (an
    event's text, as every provider writes it), without ``json.loads``'s three Python frames; anything
    else (whitespace around the value, a byte-order mark, an error) goes through ``json.loads``, which
    decodes it or raises what it raises."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def _crlf(lines: list[str]) -> bool:
    """A chunk split at its LFs has CRLF line ends only: each complete line ends with a CR, the one it
    holds, and the unfinished last piece holds none."""
    last = len(lines) - 1
    for i, line in enumerate(lines):
        if line.find("\r") != (len(line) - 1 if i < last else -1) or (i < last and not line):
            return False
    return True


class WireDecoder:
    """Incremental SSE / NDJSON decoding (see the module doc).

    ``feed(chunk)`` takes a chunk of raw input (``str`` or UTF-8 bytes), ``feed_line(line)`` one
    line without its ending, ``close()`` ends the input; each returns the wire items completed by
    that call.
    """

    __slots__ = ("max_event", "_tail", "_tail_size", "_cr", "_utf8", "_sse", "_data", "_size", "_line",
                 "_event_line")

    def __init__(self, *, max_event: int = 1 << 24) -> None:
        self.max_event = max_event
        self._tail: list[str] = []  # the pieces of the unfinished last line
        self._tail_size = 0  # characters in _tail
        self._cr = False  # the last chunk ended with a CR: a LF starting the next one is its CRLF
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._sse: bool | None = None  # None until the first non-blank line
        self._data: list[str] = []  # data lines of the SSE event being read
        self._size = 0  # characters in _data
        self._line = 0  # lines read so far
        self._event_line = 0  # line number where the current event's data began

    def feed(self, chunk: str | bytes | bytearray | memoryview) -> list[Any]:
        """Wire items completed by ``chunk``, a piece of raw stream text or UTF-8 bytes.

        Raises:
            ProviderProtocolError: a line that is not JSON, bytes that are not UTF-8, a line or
                event longer than ``max_event``.
            TypeError: ``chunk`` is neither text nor bytes.
        """
        out: list[Any] = []
        self._feed_text(self._text(chunk), out)
        return out

    def _feed_text(self, text: str, out: list[Any]) -> list[Any]:
        if not text:
            return out
        if self._cr:
            self._cr = False
            if text[0] == "\n":  # the LF of a CRLF whose CR ended the chunk before
                text = text[1:]
                if not text:
                    return out
        cr = 0  # 1: each complete line of ``lines`` still ends with the CR of its CRLF
        if "\r" in text:
            lines = text.split("\n")  # (a split at a single character is a fast scan; at "\r\n" it is not)
            if not _crlf(lines):
                return self._feed_lines(text, out)  # a lone CR or LF, or a CRLF cut after its CR
            cr = 1  # CRLF line ends only (Gemini's SSE)
        elif "\n" not in text:  # the common case of a long line: no scan, no match objects
            self._hold(text)
            return out
        else:
            lines = text.split("\n")
        if self._tail:  # the line that earlier chunks began: one join, so a long line is copied once
            self._tail.append(lines[0])
            lines[0] = "".join(self._tail)
            self._tail, self._tail_size = [], 0
        rest = lines.pop()
        lines.reverse()  # read by pop(): each line is let go once read, before the next event is decoded
        if not self._sse:
            self._feed_read(lines, out, cr)
        if lines:
            self._feed_sse(lines, out, cr)
        if rest:
            self._hold(rest)
        return out

    def _feed_read(self, lines: list[str], out: list[Any], cr: int) -> None:
        """NDJSON lines, or a stream's first lines until one says it is SSE, by :meth:`_read` (``lines`` as
        :meth:`_feed_sse` takes them)."""
        while lines and not self._sse:
            line = lines.pop()
            self._read(line[:-1] if cr else line, out)

    def _feed_lines(self, text: str, out: list[Any]) -> list[Any]:
        """:meth:`_feed_text` for text with a CR that is not part of a CRLF: every line end found by regex."""
        pos = 0
        for match in _NEWLINE.finditer(text):
            line = text[pos:match.start()]
            if self._tail:
                self._tail.append(line)
                line = "".join(self._tail)
                self._tail, self._tail_size = [], 0
            self._read(line, out)
            pos = match.end()
        if pos < len(text):
            self._hold(text[pos:])
        elif text[-1] == "\r":
            self._cr = True
        return out

    def feed_line(self, line: str | bytes) -> list[Any]:
        """Wire items completed by one line (without its line ending), as ``iter_lines()`` gives them."""
        out: list[Any] = []
        if self._tail:
            out += self.feed("\n")
        self._cr = False
        line = self._text(line)
        if len(line) > self.max_event:
            raise ProviderProtocolError(f"line {self._line + 1} is longer than {self.max_event} characters")
        self._read(line, out)
        return out

    def close(self) -> list[Any]:
        """The input ended: the last line and any event still open.

        Raises:
            ProviderProtocolError: as :meth:`feed`, and when the input ends inside a UTF-8 character.
        """
        out: list[Any] = []
        self._close_into(out)
        return out

    def _close_into(self, out: list[Any]) -> None:
        try:
            rest = self._utf8.decode(b"", final=True)
        except UnicodeDecodeError:
            raise ProviderProtocolError(f"line {self._line + 1}: the input ends inside a UTF-8 character") from None
        if rest:
            self._feed_text(rest, out)
        tail = "".join(self._tail)
        self._tail, self._tail_size = [], 0
        if tail:
            self._read(tail, out)
        self._dispatch(out)

    def _text(self, chunk: Any) -> str:
        """``chunk`` as text: bytes go through the incremental UTF-8 decoder."""
        if isinstance(chunk, str):
            return chunk
        if isinstance(chunk, _BYTES):
            try:
                return self._utf8.decode(bytes(chunk))
            except UnicodeDecodeError as exc:
                raise ProviderProtocolError(f"line {self._line + 1} is not UTF-8 text ({exc.reason})") from None
        raise TypeError(f"WireDecoder takes str or UTF-8 bytes, not {type(chunk).__name__}")

    # -- one line ---------------------------------------------------------------------

    def _feed_sse(self, lines: list[str], out: list[Any], cr: int) -> None:
        """The complete lines of an SSE chunk, in reverse (read by ``pop``), split at their LFs (with ``cr``
        1 each still ends with the CR of its CRLF, left out where the line is sliced): the lines of nearly
        every event (``event: ...``, ``data: ...`` and the blank line that ends it) handled here; any
        other line goes to :meth:`_read`."""
        data = self._data
        limit = self.max_event
        while lines:
            line = lines.pop()
            n = len(line) - cr
            if n > limit:
                self._too_long()
            if not n:
                self._line += 1
                if data:
                    if len(data) == 1 and self._shortcut(data[0], out):
                        data.clear()
                        self._size = 0
                    else:
                        self._dispatch(out, tried=True)
                        data = self._data
            elif line.startswith("event:"):
                self._line += 1  # the event's name: every provider repeats it inside its JSON
            elif line.startswith("data: "):
                self._line += 1
                if not data:
                    self._event_line = self._line
                self._size += n - 5
                if self._size > self.max_event:
                    raise ProviderProtocolError(
                        f"the event at line {self._event_line} is longer than {self.max_event} characters")
                data.append(line[6:n])
            else:
                self._read(line[:n] if cr else line, out)

    def _hold(self, rest: str) -> None:
        """Keep the unfinished line a chunk ends with (added to what earlier chunks began), within ``max_event``."""
        self._tail.append(rest)
        self._tail_size += len(rest)
        if self._tail_size > self.max_event:
            self._too_long()

    def _too_long(self) -> None:
        raise ProviderProtocolError(f"line {self._line + 1} is longer than {self.max_event} characters")

    def _read(self, line: str, out: list[Any]) -> None:
        if len(line) > self.max_event:
            self._too_long()
        self._line += 1
        if self._line == 1 and line[:1] == "\ufeff":
            line = line[1:]  # a byte-order mark opening the stream is no part of it (WHATWG: ignored)
        if self._sse is None:
            if not line.strip():
                return
            self._sse = line.lstrip().startswith(_SSE_FIELDS)
        if not self._sse:
            if line.strip() and not self._shortcut(line, out):
                self._deliver(self._decode(line, self._line), line, out)
            return
        if not line:
            self._dispatch(out)
            return
        if line[0] == ":":
            return  # a comment (OpenRouter's keep-alives)
        if line[0] in "{[":
            self._deliver(self._decode(line, self._line), None, out)  # a JSON body outside the event stream (an error)
            return
        if line.startswith("data:"):  # the value after one optional space, sliced once
            value = line[6:] if line[5:6] == " " else line[5:]
        elif line == "data":
            value = ""
        else:
            return  # event, id, retry and unknown fields carry no payload here
        if not self._data:
            self._event_line = self._line
        self._size += len(value) + 1
        if self._size > self.max_event:
            raise ProviderProtocolError(
                f"the event at line {self._event_line} is longer than {self.max_event} characters")
        self._data.append(value)

    def _dispatch(self, out: list[Any], tried: bool = False) -> None:
        lines, self._data, self._size = self._data, [], 0
        if not lines:
            return
        data = lines[0] if len(lines) == 1 else "\n".join(lines)
        if len(data) < 16 and data.strip() == _DONE:
            return
        if len(lines) == 1 and not tried and self._shortcut(data, out):
            return  # (read without decoding: a subclass's template)
        self._decode_event(data, lines, out)

    def _decode_event(self, data: str, lines: list[str], out: list[Any]) -> None:
        """An event's ``data`` (its data ``lines`` joined), decoded and delivered."""
        try:
            value = _loads(data)
        except ValueError as exc:
            error = exc
        except RecursionError as exc:
            raise ProviderProtocolError(f"the event at line {self._event_line} nests too deeply") from exc
        else:
            self._deliver(value, data, out)
            return
        if len(lines) > 1:  # data lines each a value of their own: a writer that left out the blank lines
            try:
                values = [json.loads(line) for line in lines if line.strip() and line.strip() != _DONE]
            except (ValueError, RecursionError):
                pass
            else:
                for value in values:
                    self._deliver(value, None, out)
                return
        raise ProviderProtocolError(f"the event at line {self._event_line} is not JSON: {error}") from error

    def _shortcut(self, data: str, out: list[Any]) -> bool:
        """A subclass's way to read the one-line event ``data`` without decoding it (``True``: done)."""
        return False

    def _deliver(self, value: Any, data: str | None, out: list[Any]) -> None:
        """One decoded event (``data``: its text, when it was one line): a wire item."""
        out.append(value)

    @staticmethod
    def _decode(line: str, number: int) -> Any:
        try:
            return _loads(line)
        except (ValueError, RecursionError) as exc:
            raise ProviderProtocolError(f"line {number} is not JSON: {exc}") from exc


def iter_wire(chunks: Iterable[str | bytes], *, max_event: int = 1 << 24) -> Iterator[Any]:
    """Wire items from raw chunks as they arrive (an HTTP body's ``iter_bytes()`` or ``iter_text()``, a file)."""
    decoder = WireDecoder(max_event=max_event)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()


def read_wire(text: str) -> list[Any]:
    """Every wire item of a whole recording: SSE or NDJSON text (see the module doc)."""
    decoder = WireDecoder(max_event=max(len(text), 1))
    return decoder.feed(text) + decoder.close()
