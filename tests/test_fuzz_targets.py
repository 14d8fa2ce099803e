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

# Per target: a few seconds on one core, so that the whole smoke run stays well under a minute.
EXAMPLES = 250

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


@settings(max_examples=EXAMPLES)
@given(data=inputs("parser"))
@example(data=b"\x00\x00" + b"\x00" * 9 + b'{"a": [1, 2.5, "x\\u00e9"]}')
def test_parser(data: bytes) -> None:
    TARGETS["parser"](data)


@settings(max_examples=EXAMPLES)
@given(data=inputs("lenient"))
@example(data=b"\x00\x01" + b"\x00" * 9 + b"{'a': True,}")
def test_lenient(data: bytes) -> None:
    TARGETS["lenient"](data)


@settings(max_examples=EXAMPLES)
@given(data=inputs("wire"))
@example(data=b"\x00\x00" + b"\x03\x05\x01\x0f" + b"\x00" * 5 + b'data: {"a": 1}\n\n')
def test_wire(data: bytes) -> None:
    TARGETS["wire"](data)


@settings(max_examples=60)
@given(data=st.binary(max_size=60))
@example(data=b"")
@example(data=b"\x04\x00\x01\x03\x03\x01\x07\x00\x00\x00\x00\x00\x00\x03\x05\x02")
def test_provider(data: bytes) -> None:
    TARGETS["provider"](data)


@settings(max_examples=EXAMPLES)
@given(data=st.binary(max_size=120))
@example(data=b"\x00" + b"\x00" * 9 + b"\x08\x21\x03\x02\x05")
def test_textcalls(data: bytes) -> None:
    TARGETS["textcalls"](data)


@settings(max_examples=EXAMPLES)
@given(data=st.binary(max_size=120))
def test_policy(data: bytes) -> None:
    TARGETS["policy"](data)


def _shared_documents(name: str) -> list[bytes]:
    from fuzz.make_corpus import documents_for
    from fuzz.recordings import SHARED

    return list(documents_for(name, max_size=8 * 1024)) if SHARED.is_dir() else []


@pytest.mark.parametrize("name", sorted(PREFIXES))
def test_seed_corpus_from_shared(name: str) -> None:
    """Every seed fuzz/make_corpus.py takes from ../shared (JSONTestSuite, the recordings), read in place."""
    docs = _shared_documents(name)
    if len(docs) < 10:
        pytest.skip("../shared is absent")
    for doc in docs:
        for prefix in PREFIXES[name]:
            TARGETS[name](prefix + doc)


@pytest.mark.parametrize("name", ["provider", "textcalls", "policy"])
def test_generated_seeds(name: str) -> None:
    """The choice strings fuzz/make_corpus.py writes for the targets that draw their own seeds."""
    from fuzz.targets import seeds

    for data in seeds(name, iter(())):
        TARGETS[name](data)
