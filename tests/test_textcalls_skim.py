"""The skimmer's two implementations agree (hypothesis), and find a JSON value's end in any chunking."""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream import _textcalls_py

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

try:
    from argstream import _textcalls as compiled
except ImportError:  # a pure build
    compiled = None

SKIMMERS = [_textcalls_py.skim] + ([compiled.skim] if compiled is not None else [])
TEXT = st.text(st.sampled_from(list('{}[]"\\ab ,:é🙂')), max_size=12)
VALUES = st.recursive(st.one_of(st.none(), st.integers(), TEXT),
                      lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
                      max_leaves=10)


def run(skim: Any, chunks: list[str]) -> int:
    """Where the value ends (in the joined text), or -1."""
    depth, in_str, esc, offset = 0, False, False, 0
    for chunk in chunks:
        end, depth, in_str, esc, done = skim(chunk, 0, depth, in_str, esc, 512)
        if done:
            return offset + end
        offset += len(chunk)
    return -1


@pytest.mark.parametrize("skim", SKIMMERS)
@given(value=st.one_of(st.lists(VALUES, max_size=3), st.dictionaries(TEXT, VALUES, max_size=3), TEXT.map(str)),
       tail=TEXT, cuts=st.lists(st.integers(0, 500), max_size=6))
@settings(max_examples=200)
def test_finds_the_end_in_any_chunking(skim: Any, value: Any, tail: str, cuts: list[int]) -> None:
    doc = json.dumps(value, ensure_ascii=False)
    text = doc + tail
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    assert run(skim, chunks) == len(doc)


@given(text=st.text(st.sampled_from(list('{}[]"\\x')), max_size=30), depth=st.integers(0, 3), in_str=st.booleans(),
       esc=st.booleans(), i=st.integers(0, 30))
@settings(max_examples=300)
def test_twins_agree(text: str, depth: int, in_str: bool, esc: bool, i: int) -> None:
    if compiled is None:
        pytest.skip("no compiled skimmer")
    esc = esc and in_str
    i = min(i, len(text))
    assert compiled.skim(text, i, depth, in_str, esc, 512) == _textcalls_py.skim(text, i, depth, in_str, esc, 512)


@pytest.mark.parametrize("skim", SKIMMERS)
def test_depth_bound(skim: Any) -> None:
    end, depth, _, _, done = skim("[" * 20, 0, 0, False, False, 8)
    assert not done and depth > 8


def test_scanner_uses_the_compiled_hot_paths_with_the_compiled_core() -> None:
    import argstream
    from argstream import textcalls

    if argstream.BACKEND != "cython":
        pytest.skip("the pure backend")
    assert compiled is not None
    assert textcalls.TextPiece is compiled.TextPiece and textcalls.ScannerCore is compiled.ScannerCore


@pytest.mark.parametrize("module", SKIMMERS and [_textcalls_py] + ([compiled] if compiled is not None else []))
def test_items_behave_as_values(module: Any) -> None:
    a, b = module.TextPiece("x"), module.CallArguments(1, "{}")
    assert a == module.TextPiece("x") and a != module.TextPiece("y") and b == module.CallArguments(1, "{}")
    assert repr(a) == "TextPiece(text='x')" and repr(b) == "CallArguments(call=1, text='{}')"
    match b:
        case module.CallArguments(call, text):
            assert (call, text) == (1, "{}")
