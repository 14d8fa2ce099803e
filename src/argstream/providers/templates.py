"""Event templates: a raw stream's argument deltas read without decoding their JSON.

A provider sends one event shape for every argument delta of a call, the same text each time but
for the argument string (and, for some, a sequence number or a padding string that the adapter
never reads). Once the adapter has taken such an event the ordinary way (``json.loads``, then its
``chunk``), :func:`learn` turns the event's text into an :class:`EventTemplate`: that text with the
argument string and those free fields cut out as holes. A later event whose text fits the template
is the same JSON with other values in the holes, so the adapter decides on the learned item with
the new argument text (``chunk(item, text=...)``) and the event is never decoded. Anything else
(another key, another order, other spacing, a hole that is not a plain token) does not fit, and is
decoded as before.

Why a fit is exact: a hole is one JSON string or integer token, matched by a grammar that admits
no unescaped quote and no control character, so it cannot end early or swallow structure; the text
around the holes is compared character for character. :func:`learn` also checks, once, that the
holes are where the adapter reads: the text with other values in the holes decodes to the learned
item with those values at those places, and to nothing else.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner json.loads uses
from typing import Any

from .. import _backend

__all__ = ["EventTemplate", "learn"]

#: the content of a JSON string (up to its closing quote): plain runs and valid escapes, nothing else
_TEXT, _STR, _INT = 0, 1, 2
#: a free string hole's content and closing quote; a free integer hole
_FREE = {_STR: re.compile(r'[^"\\\x00-\x1f]*"'), _INT: re.compile(r"-?(?:0|[1-9][0-9]*)")}
_SENTINEL_TEXT = "\\u0001"  # decodes to "\x01", never a delta's own text


class EventTemplate:
    """One learned event shape (see the module doc). ``item`` is the event it was learned from.

    ``match(data)`` gives the argument text of an event that fits, else ``None``. The shape is the
    text before the first hole (``head``), then for each hole its kind and the text after it up to
    the next hole (``rest``); a string hole's text starts after its opening quote and the text
    after it starts after its closing quote. ``message``: the hole is a message text delta's text
    (the adapter's ``text_chunk`` decides), not an argument delta's.
    """

    __slots__ = ("item", "head", "rest", "message")

    def __init__(self, item: Any, head: str, rest: tuple[tuple[int, str], ...], message: bool = False) -> None:
        self.item = item
        self.head = head
        self.rest = rest
        self.message = message

    def match(self, data: str) -> str | None:
        """The argument text of ``data`` when it fits this template, else ``None``."""
        if not data.startswith(self.head):
            return None
        pos = len(self.head)
        text = None
        for kind, after in self.rest:
            if kind == _TEXT:
                try:  # strict: no control character, no invalid escape; it stops at the first unescaped quote
                    text, pos = scanstring(data, pos)
                except ValueError:
                    return None
            else:
                m = _FREE[kind].match(data, pos)
                if m is None:
                    return None
                pos = m.end()
            if not data.startswith(after, pos):
                return None
            pos += len(after)
        return text if pos == len(data) else None


def learn(data: str, item: Any, text_path: Sequence[Any], free: Sequence[str] = (),
          message: bool = False) -> EventTemplate | None:
    """The template of ``data``, an event's one-line JSON text that decodes to ``item``, whose
    argument text (``message``: message text) is at ``text_path``; ``free`` names top-level fields
    the adapter never reads, cut out as holes too. ``None`` when the event cannot be told apart
    safely (a key written twice or escaped, a free field that is not a plain string or an integer)."""
    text = _at(item, text_path)
    if type(text) is not str or type(item) is not dict:
        return None
    holes = []  # (start, end, kind, sentinel, place): a token's span in data (a string's without quotes)
    found = _token(data, text_path[-1], _TEXT)
    if found is None:
        return None
    holes.append((*found, _TEXT, _SENTINEL_TEXT, tuple(text_path)))
    for name in free:
        value = item.get(name)
        kind = _INT if type(value) is int else _STR if type(value) is str else None
        if kind is None:
            continue
        found = _token(data, name, kind)
        if found is None:
            return None
        sentinel = ("8" if value == 7 else "7") if kind == _INT else ("~~" if value == "~" else "~")
        holes.append((*found, kind, sentinel, (name,)))
    holes.sort()
    if any(a[1] >= b[0] for a, b in zip(holes, holes[1:])):
        return None
    if not _holes_where_read(data, item, holes):
        return None
    rest = []
    for n, (_, end, kind, _, _) in enumerate(holes):
        after = end if kind == _INT else end + 1  # past a string's closing quote
        rest.append((kind, data[after:holes[n + 1][0] if n + 1 < len(holes) else len(data)]))
    template = _TEMPLATE(item, data[:holes[0][0]], tuple(rest), message)
    return template if template.match(data) == text else None


def _token(data: str, key: str, kind: int) -> tuple[int, int] | None:
    """The span of the value of ``key`` in ``data`` (a string's content without its quotes), when
    ``"key":`` occurs exactly once and its value is a token of that kind."""
    matches = list(_marker(key).finditer(data))
    if len(matches) != 1:
        return None
    pos = matches[0].end()
    if kind == _INT:
        m = _FREE[_INT].match(data, pos)
        return (pos, m.end()) if m is not None else None
    if data[pos:pos + 1] != '"':
        return None
    if kind == _STR:
        m = _FREE[_STR].match(data, pos + 1)
        return (pos + 1, m.end() - 1) if m is not None else None
    try:
        end = scanstring(data, pos + 1)[1]
    except ValueError:
        return None
    return pos + 1, end - 1


@functools.lru_cache(maxsize=64)
def _marker(key: str) -> re.Pattern[str]:
    """``"key":`` with any JSON whitespace around the colon (the adapters' few keys: compiled once)."""
    return re.compile(re.escape(json.dumps(key)) + r"[ \t\r\n]*:[ \t\r\n]*")


def _holes_where_read(data: str, item: Any, holes: list[tuple[Any, ...]]) -> bool:
    """Other values in the holes decode to ``item`` with those values at the holes' places, and
    putting the item's own values back gives ``item`` exactly."""
    pieces: list[str] = []
    pos = 0
    for start, end, _, sentinel, _ in holes:
        pieces += (data[pos:start], sentinel)
        pos = end
    pieces.append(data[pos:])
    try:
        other = json.loads("".join(pieces))
    except (ValueError, RecursionError):
        return False
    for _, _, kind, sentinel, place in holes:
        expected = "\x01" if kind == _TEXT else int(sentinel) if kind == _INT else sentinel
        got = _at(other, place)
        if type(got) is not type(expected) or got != expected:
            return False
        _put(other, place, _at(item, place))
    return _same(other, item)


def _same(a: Any, b: Any) -> bool:
    """JSON equality with types compared (``1`` is not ``true`` nor ``1.0``): their JSON texts, written
    back in C, are equal (key order included, which two decodings of one skeleton share). The compiled
    writer (``_encode.compact``) writes a decoded event's plain values; ``json.dumps`` anything else
    (it builds an encoder per call: most of this check's cost when it wrote every event)."""
    if _COMPACT is not None:
        x, y = _COMPACT(a), _COMPACT(b)
        if x is not None and y is not None:
            return x == y
    try:
        return json.dumps(a, check_circular=False) == json.dumps(b, check_circular=False)
    except (ValueError, RecursionError):
        return False


def _at(value: Any, path: Sequence[Any]) -> Any:
    for step in path:
        if type(value) is dict and type(step) is str:
            value = value.get(step)
        elif type(value) is list and type(step) is int and 0 <= step < len(value):
            value = value[step]
        else:
            return None
    return value


def _put(value: Any, path: Sequence[Any], new: Any) -> None:
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


#: the compiled twin when the compiled core runs (``argstream._raw``), else this module's class
_TEMPLATE: Any = _backend.raw_c.EventTemplate if _backend.raw_c is not None else EventTemplate
#: the compiled compact JSON writer (``_same``), when the compiled core runs
_COMPACT: Any = _backend.encode_c.compact if _backend.encode_c is not None else None
