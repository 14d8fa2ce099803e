"""argstream.compat.axio against the real axio: random valid argument objects x random chunkings.

After every feed both give the same events (axio flushes one delta per field per feed, so per-feed
lists are already merged), the same ``current_key`` and the same ``done``. The one normalisation is
documented in docs/compat.md: axio decodes a ``\\uD83D\\uDE00`` escape *in a key* as two lone
surrogates, where this layer joins the pair (as JSON does), so axio's keys go through a UTF-16
round trip before comparing.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("axio.tool_args", reason="axio (Python >= 3.12) is not installed")
hypothesis = pytest.importorskip("hypothesis")

from axio.tool_args import ToolArgStream as AxioToolArgStream  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from argstream.compat.axio import ToolArgStream  # noqa: E402

pytestmark = pytest.mark.hypothesis

# make_parser is a stateless factory: sharing it between examples is fine.
_shared_fixture = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
)

# Text dense in what matters: quotes, backslashes, control characters, '}' and ']' inside strings,
# non-ASCII, astral characters (surrogate pairs when ensure_ascii=True) and plain letters.
_ALPHABET = st.sampled_from(list('"\\/{}[],: \n\t\x00\x1f\x7fab0é€\u2028日😀🇫'))
texts = st.text(_ALPHABET, max_size=12) | st.text(max_size=8)
scalars = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    scalars | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
arguments = st.dictionaries(texts, json_values, max_size=6)


@st.composite
def documents(draw) -> str:
    value = draw(arguments)
    style = draw(st.sampled_from(["compact", "default", "indent", "spaced"]))
    ensure_ascii = draw(st.booleans())
    if style == "compact":
        return json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":"))
    if style == "indent":
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=draw(st.sampled_from([0, 1, 2, "\t"])))
    if style == "spaced":
        return " \n" + json.dumps(value, ensure_ascii=ensure_ascii, separators=(" , ", " : ")) + "\r\n "
    return json.dumps(value, ensure_ascii=ensure_ascii)


@st.composite
def chunked(draw) -> list[str]:
    doc = draw(documents())
    if draw(st.integers(0, 9)) == 0:
        return list(doc)  # one character at a time
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(doc) - 1)), max_size=12)))
    bounds = [0, *cuts, len(doc)]
    return [doc[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def _key(key: str) -> str:
    return key.encode("utf-16", "surrogatepass").decode("utf-16")


def _norm(events: list) -> list[tuple]:
    return [(type(ev).__name__, ev.index, ev.tool_use_id, _key(ev.key), getattr(ev, "text", None)) for ev in events]


@_shared_fixture
@given(chunked(), st.integers(0, 3))
def test_same_events_current_key_and_done_after_every_feed(make_parser, chunks, index):
    ours = ToolArgStream("toolu_1", index, parser_factory=make_parser)
    theirs = AxioToolArgStream("toolu_1", index)
    for chunk in chunks:
        got = ours.feed(chunk)
        want = theirs.feed(chunk)
        assert _norm(got) == _norm(want), (chunks, chunk)
        assert ours.current_key == _key(theirs.current_key)
        assert ours.done == theirs.done
    assert ours.done
    assert ours.finish() == []


@_shared_fixture
@given(arguments, st.integers(1, 40))
def test_fixed_size_chunks_and_decoded_strings(make_parser, value, size):
    """The provider-like case (fixed-size chunks): merged string deltas decode to json.loads' values."""
    doc = json.dumps(value)
    ours = ToolArgStream("c", parser_factory=make_parser)
    theirs = AxioToolArgStream("c")
    texts_: dict[str, str] = {}
    for i in range(0, len(doc), size):
        got = ours.feed(doc[i : i + size])
        assert _norm(got) == _norm(theirs.feed(doc[i : i + size]))
        for ev in got:
            if type(ev).__name__ == "ToolFieldDelta":
                texts_[ev.key] = texts_.get(ev.key, "") + ev.text
            elif type(ev).__name__ == "ToolFieldStart":
                texts_[ev.key] = ""
    for key, v in value.items():
        assert texts_[key] == (v if isinstance(v, str) else json.dumps(v))
