"""Target for the text tool-call scanner: any text, built from every format's markers and arbitrary
characters, at any chunking, scans as the whole text does; nothing raises; the items are well formed
(each call begins once, its arguments come between its begin and its end, and it ends once); and
the text the reader sees is taken from the input in order, nothing invented (the input accounts for it).
"""

from __future__ import annotations

from typing import Any

from argstream import textcalls as T
from argstream.textcalls import (
    FORMATS, CallArguments, CallBegin, CallEnd, ReasoningPiece, TextPiece, TextToolCallScanner,
)

from ._data import Draw, chunking

MARKERS = [
    T.TOOL_CALL, T.TOOL_CALL_END, T.FENCE, '{"name": "f", "arguments": ', '{"name": "f", "parameters": ',
    '{"name": ', '"arguments": ', "<function=f>", "<parameter=x>", T.PARAMETER_END, T.FUNCTION_END, T.ARG_KEY,
    T.ARG_KEY_END, T.ARG_VALUE, T.ARG_VALUE_END, T.MISTRAL_CALLS, T.MISTRAL_ARGS, T.MISTRAL_CALL_ID, T.PYTHON_TAG,
    T.DS_CALLS, T.DS_CALL, T.DS_SEP, T.DS_CALL_END, T.DS_CALLS_END, T.KIMI_SECTION, T.KIMI_CALL, T.KIMI_ARGS,
    T.KIMI_CALL_END, T.KIMI_SECTION_END, T.H_START, T.H_CHANNEL, T.H_MESSAGE, T.H_END, T.H_CALL, T.H_RETURN,
    "analysis", "commentary to=functions.f", "final", "function", "functions.f:0", "assistant", "json\n",
    "functions.f", "<|constrain|>json",
]
CHARS = '<>{}[]"\\/`|_=\n ,:aé🙂;f0-.\t\r\u200b\ud800\x00tnrue'


def build_text(draw: Draw, size: int) -> str:
    """Text from the bytes: each byte a marker (even) or a character (odd)."""
    out = []
    for _ in range(size):
        b = draw.byte()
        out.append(MARKERS[(b >> 1) % len(MARKERS)] if b & 1 == 0 else CHARS[(b >> 1) % len(CHARS)])
    return "".join(out)


def scan(fmt: str, chunks: list[str]) -> list[Any]:
    scanner = TextToolCallScanner(fmt, id_prefix="i")
    out: list[Any] = []
    for chunk in chunks:
        out += scanner.feed(chunk)
    return merged(out + scanner.finish())


def merged(items: list[Any]) -> list[Any]:
    """Adjacent text (and argument) pieces joined: a chunking may change only how they are cut."""
    out: list[Any] = []
    for item in items:
        if out and type(item) in (TextPiece, ReasoningPiece) and type(out[-1]) is type(item):
            out[-1] = type(item)(out[-1].text + item.text)
        elif out and type(item) is CallArguments and type(out[-1]) is CallArguments:
            out[-1] = CallArguments(item.call, out[-1].text + item.text)
        else:
            out.append(item)
    return out


def _is_subsequence(part: str, whole: str) -> bool:
    it = iter(whole)
    return all(ch in it for ch in part)


def textcalls(data: bytes) -> None:
    draw = Draw(data)
    fmt = draw.pick(["auto", *FORMATS])
    chunk_draw = Draw(draw.take(9))
    text = build_text(draw, len(draw.data) - draw.pos)
    whole = scan(fmt, [text] if text else [])
    chunked = scan(fmt, chunking(chunk_draw, text))
    assert chunked == whole, (fmt, text, whole, chunked)
    open_call = None
    seen: set[int] = set()
    shown = []
    for item in whole:
        if type(item) is CallBegin:
            assert open_call is None and item.call not in seen, (fmt, text, whole)
            open_call = item.call
            seen.add(item.call)
        elif type(item) is CallArguments:
            assert item.call == open_call, (fmt, text, whole)
        elif type(item) is CallEnd:
            assert item.call == open_call, (fmt, text, whole)
            open_call = None
        else:
            assert type(item) in (TextPiece, ReasoningPiece), item
            assert item.text, (fmt, text, whole)
            shown.append(item.text)
    assert open_call is None, (fmt, text, whole)  # finish() ends a call left open
    assert _is_subsequence("".join(shown), text), (fmt, text, whole)


__all__ = ["textcalls", "build_text"]
