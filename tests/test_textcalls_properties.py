"""Hypothesis: any text built from every format's markers scans the same at any chunking, never raises,
and never hangs (the fuzz that found a lost space after a broken call and text emitted twice)."""

from __future__ import annotations

from typing import Any

import pytest

from argstream import textcalls as T
from argstream.textcalls import FORMATS, CallArguments, ReasoningPiece, TextPiece, TextToolCallScanner

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ATOMS = [
    *'<>{}[]"\\/`|_=\n ,:aé🙂;f', T.TOOL_CALL, T.TOOL_CALL_END, "```", '{"name": "f", "arguments": ',
    '{"name": "f", "parameters": ', "<function=f>", "<parameter=x>", "</parameter>", "</function>", "<arg_key>",
    "</arg_key>", "<arg_value>", "</arg_value>", T.MISTRAL_CALLS, T.MISTRAL_ARGS, T.MISTRAL_CALL_ID, T.PYTHON_TAG,
    T.DS_CALLS, T.DS_CALL, T.DS_SEP, T.DS_CALL_END, T.DS_CALLS_END, T.KIMI_SECTION, T.KIMI_CALL, T.KIMI_ARGS,
    T.KIMI_CALL_END, T.KIMI_SECTION_END, T.H_START, T.H_CHANNEL, T.H_MESSAGE, T.H_END, T.H_CALL, T.H_RETURN,
    "analysis", "commentary to=functions.f", "final", "function", "functions.f:0",
]


def scan(fmt: str, chunks: list[str]) -> list[Any]:
    scanner = TextToolCallScanner(fmt, id_prefix="i")
    out: list[Any] = []
    for chunk in chunks:
        out += scanner.feed(chunk)
    return merged(out + scanner.finish())


def merged(items: list[Any]) -> list[Any]:
    """Adjacent text (and argument) pieces joined: what a chunking may change is only how they are cut."""
    out: list[Any] = []
    for item in items:
        if out and type(item) in (TextPiece, ReasoningPiece) and type(out[-1]) is type(item):
            out[-1] = type(item)(out[-1].text + item.text)
        elif out and type(item) is CallArguments and type(out[-1]) is CallArguments:
            out[-1] = CallArguments(item.call, out[-1].text + item.text)
        else:
            out.append(item)
    return out


@given(fmt=st.sampled_from(["auto", *FORMATS]), text=st.lists(st.sampled_from(ATOMS), max_size=40).map("".join),
       cuts=st.lists(st.integers(0, 1 << 16), max_size=8))
@settings(max_examples=400)
def test_any_chunking_scans_the_same(fmt: str, text: str, cuts: list[int]) -> None:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    assert scan(fmt, chunks) == scan(fmt, [text])
