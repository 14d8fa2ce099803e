"""The fuzz targets (fuzz/, issue 18) as a bounded Hypothesis smoke run: random bytes, and seed
documents with random choice bytes in front and random bytes spliced in. A failure here is a
defect the long runs (``python -m fuzz TARGET``, docs/fuzzing.md) would report too: its input is
printed by Hypothesis; add it to tests/test_fuzz_regressions.py."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

if str(ROOT) not in sys.path:  # the fuzz package sits at the repository root, beside tests/
    sys.path.insert(0, str(ROOT))

from fuzz.targets import PREFIXES, TARGETS  # noqa: E402

pytestmark = pytest.mark.hypothesis

DOCUMENTS = {
    "parser": [b'{"a": [1, -2.5e-3, true, null, {"b": "\\u00e9\\ud83d\\ude00\\n"}], "c": ""}', b'["\\ud800"]',
               b"[" * 40, b'{"a": 1, "a": 2}', b"1e999", b"\xef\xbb\xbf[]", b'"\xc3\xa9\xf0\x9f\x99\x82"', b"-0.0"],
    "lenient": [b"{'a': True, b: [1, 2,], // c\n}", b'```json\n{"a": 1}\n```', b'"{\\"a\\": 1}"', b'{"a": [tr',
                b"{a: None /* x */}", b'{"a": 1.'],
    "wire": [b'data: {"a": 1}\n\n', b'event: x\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: [DONE]\n\n',
             b'{"a": 1}\n{"b": [2]}\n', b'\xef\xbb\xbf: c\nid: 1\ndata: {"x": "\xc3\xa9"}\r\r', b'data: {"a"}\n\n'],
}
DOCUMENTS["lenient"] += DOCUMENTS["parser"][:3]


@st.composite
def seeded(draw: st.DrawFn, name: str) -> bytes:
    """A seed document behind a known or random prefix, with a few random bytes spliced in."""
    prefix = draw(st.sampled_from(PREFIXES[name]) | st.binary(min_size=11, max_size=11))
    doc = bytearray(draw(st.sampled_from(DOCUMENTS[name])))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(doc)))
        doc[i:i + draw(st.integers(0, 2))] = draw(st.binary(max_size=3))
    return prefix + bytes(doc)


def inputs(name: str) -> st.SearchStrategy[bytes]:
    raw = st.binary(max_size=300)
    return st.one_of(raw, seeded(name)) if name in PREFIXES else raw


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_target_runs_on_nothing(name: str) -> None:
    TARGETS[name](b"")


@pytest.mark.parametrize("name", sorted(PREFIXES))
@pytest.mark.parametrize("index", range(8))
def test_target_accepts_its_seeds(name: str, index: int) -> None:
    docs = DOCUMENTS[name]
    if index >= len(docs):
        pytest.skip("fewer seeds")
    for prefix in PREFIXES[name]:
        TARGETS[name](prefix + docs[index])


@given(data=inputs("parser"))
@example(data=b"\x00\x00" + b"\x00" * 9 + b'{"a": [1, 2.5, "x\\u00e9"]}')
def test_parser(data: bytes) -> None:
    TARGETS["parser"](data)


@given(data=inputs("lenient"))
@example(data=b"\x00\x01" + b"\x00" * 9 + b"{'a': True,}")
def test_lenient(data: bytes) -> None:
    TARGETS["lenient"](data)


@given(data=inputs("wire"))
@example(data=b"\x00\x00" + b"\x03\x05\x01\x0f" + b"\x00" * 5 + b'data: {"a": 1}\n\n')
def test_wire(data: bytes) -> None:
    TARGETS["wire"](data)


@settings(max_examples=40)
@given(data=st.binary(max_size=60))
@example(data=b"")
@example(data=b"\x04\x00\x01\x03\x03\x01\x07\x00\x00\x00\x00\x00\x00\x03\x05\x02")
def test_provider(data: bytes) -> None:
    TARGETS["provider"](data)


@given(data=st.binary(max_size=120))
@example(data=b"\x00" + b"\x00" * 9 + b"\x08\x21\x03\x02\x05")
def test_textcalls(data: bytes) -> None:
    TARGETS["textcalls"](data)


@given(data=st.binary(max_size=120))
def test_policy(data: bytes) -> None:
    TARGETS["policy"](data)
