"""A tool call's argument JSON text, written back from its progress items as they arrive.

The stream items carry each argument fragment (flattened: ``path`` and ``leaf``), not the
provider's raw text, so the protocols' input deltas are written from the fragments: the
deltas of one call join to compact JSON whose value is the arguments' (``json.loads`` of the
joined text equals the final ``arguments``). Each delta holds only what its fragment adds, so
a long string streams as its pieces, escaped.

Numbers that JSON cannot write (a model's ``1e999`` parses to infinity) are written ``null``,
as a browser's ``JSON.stringify`` does.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring
from typing import Any

from .._backend import ARRAY_ITEM_TYPES, OBJECT_ENTRY_TYPES, SCALAR_TYPES, STRING_TYPES
from .._fragments_py import Done, Empty

__all__ = ["ArgumentText", "json_safe"]

_EMPTY = {"object": "{}", "array": "[]", "string": '""'}
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is float:
        return repr(value) if math.isfinite(value) else "null"
    return str(int(value))


class _Frame:
    __slots__ = ("close", "count", "open")

    def __init__(self, close: str) -> None:
        self.close = close  # "}" or "]"
        self.count = 0  # members started
        self.open = False  # a member's value is still streaming


class ArgumentText:
    """Turns one call's progress ``(path, leaf)`` pairs into JSON text deltas."""

    __slots__ = ("_frames", "string_depth", "done", "started")

    def __init__(self) -> None:
        self._frames: list[_Frame] = []  # the open containers, root first
        self.string_depth = -1  # the path length of the string value being written (-1: none)
        self.done = False  # the root value is complete
        self.started = False  # a fragment arrived

    def whole(self, arguments: Any) -> str:
        """The text of arguments that arrived without any fragment (a tool without parameters flushes ``{}``)."""
        return "" if self.started else _compact(json_safe(arguments))

    def delta(self, path: tuple[Any, ...], leaf: Any) -> str:
        """The text that ``leaf`` at ``path`` adds."""
        cls = type(leaf)
        frames = self._frames
        depth = len(path)
        self.started = True
        if depth == self.string_depth and cls in STRING_TYPES:
            return encode_basestring(leaf.text)[1:-1]  # the common case: one more piece of the same string
        out: list[str] = []
        for i in range(depth):
            step = path[i]
            if i < len(frames):
                frame = frames[i]
            else:
                frame = _Frame("}" if type(step) is str else "]")
                frames.append(frame)
                out.append("{" if type(step) is str else "[")
            if not frame.open:
                frame.open = True
                if frame.count:
                    out.append(",")
                frame.count += 1
                if type(step) is str:
                    out.append(encode_basestring(step))
                    out.append(":")
        if cls in STRING_TYPES:
            if self.string_depth < 0:
                self.string_depth = depth
                out.append('"')
            out.append(encode_basestring(leaf.text)[1:-1])
        elif cls is Done:
            if len(frames) > depth:
                out.append(frames.pop().close)
            elif self.string_depth >= 0:
                self.string_depth = -1
                out.append('"')
            if depth:
                frames[depth - 1].open = False
            else:
                self.done = True
        elif cls in SCALAR_TYPES:
            out.append(_scalar(leaf.value))
        elif cls is Empty:
            out.append(_EMPTY[leaf.kind])
        elif cls in OBJECT_ENTRY_TYPES or cls in ARRAY_ITEM_TYPES:
            raise TypeError("a leaf is a Scalar, String, Empty or Done")
        return "".join(out)


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (a copy only where one is found)."""
    cls = type(value)
    if cls is float:
        return value if math.isfinite(value) else None
    if cls is dict:
        for key, item in value.items():
            if json_safe(item) is not item:
                return {k: json_safe(v) for k, v in value.items()}
        return value
    if cls is list or cls is tuple:
        for item in value:
            if json_safe(item) is not item:
                return [json_safe(v) for v in value]
        return value
    return value
