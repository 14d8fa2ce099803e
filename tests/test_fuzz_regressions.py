"""Inputs the fuzz targets (fuzz/, docs/fuzzing.md) found: each a test of the defect it showed,
``xfail(strict=True)`` while the defect is open so that its fix is noticed and the mark removed."""

from __future__ import annotations

import json
import sys

import pytest

from argstream.providers import ProviderProtocolError
from argstream.providers.wire import WireDecoder

from _support import loads
from conftest import ROOT

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz.targets import TARGETS  # noqa: E402


def decode(chunks: list[bytes], max_event: int) -> tuple[list, str | None]:
    decoder = WireDecoder(max_event=max_event)
    out: list = []
    try:
        for chunk in chunks:
            out += decoder.feed(chunk)
        out += decoder.close()
    except ProviderProtocolError as exc:
        return out, str(exc)
    return out, None


@pytest.mark.parametrize(("text", "cuts"), [(b": c\nid: 1\nretry: 5\n\n", (12, 18)), (b'{"a": 12345}\n', (9,))])
def test_wire_line_limit_does_not_depend_on_chunking(text: bytes, cuts: tuple[int, ...]) -> None:
    """fuzz target ``wire``: a line of 8+ characters with ``max_event=7``. Fed whole it decodes (its
    items, or nothing for a field without payload); cut inside that line, the same bytes raise
    ``ProviderProtocolError: line N is longer than 7 characters``. The module doc says a line longer
    than ``max_event`` raises: it must, at every chunking."""
    whole = decode([text], 7)
    bounds = [0, *cuts, len(text)]
    cut = decode([text[a:b] for a, b in zip(bounds, bounds[1:])], 7)
    assert whole[1] is not None and cut[1] is not None, (whole, cut)


# Inputs that once failed a target (target name, the input as the fuzzer saved it); each must pass now.
# The first four are the findings above, which their targets step around until they are fixed; the
# others failed a target that was wrong, each a rule the target now states.
FIXED: list[tuple[str, bytes]] = [
    ("wire", b"w*\xcc\x8b\x85\xff\xde=\xae\x9fR: c\nid: 1\nretry: 5\n\n"),
    ("parser", b'\x00b\x00\xb5\x00\x00\x00\x00\x00\x00,["\xff"]'),
    ("lenient", b"1;3\x01\x009/3s333/2"),
    ("lenient", b"\x00\x01\x03\x03\x01\x07\x00\x00\x00\x00\x00```b2" + b"4" * 71 + b"1}\n" + b"\x00" * 8 + b"```"),
    # after an error, ``position`` counts what was pushed: only a clean end's state is compared
    ("parser", b"\x00\x02" + b"\x01\x06" + b"\x00" * 7 + b'"a": [1, 2.5, "x\\u00e9"]}'),
    # a double-encoded value's own repairs are recorded at the outer quote, after the outer ones
    ("lenient", b'\x00\x01\x03\x03\x01\x07\x00\x00\x00\x00\x00"[\\"]'),
    # a root string holding broken JSON is a lenient error (double_encoded), not a lost value
    ("lenient", b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"{\\"\\"!"'),
    # empty input, bytes: the target's own check once mixed str and bytes
    ("lenient", b""),
    # Ollama: an item after ``done`` raises once, after the response's StreamFinished (issue 18 item 3)
    ("provider", b"\x8b\xca\xb0\xef\xeb\xee\x15 #an/\xfb\x8d\xfd\x82\xb0\xd1\xd8\xd5\xf1\xd7\xe8\x18\xd1\x05"
                 b"\x91\x1a=\xe8]IdX\xce"),
    # auto / DeepSeek: whitespace after a call, then what only starts like a marker, cut there: the
    # whitespace was let go while the marker was undecided (kept when the text came whole)
    ("textcalls", b'\x00\x02\x01\x00\x00\x00\xfc\x1d\x01\x005\x00\x00\x00\x00\xa7\xff\xff\xff\xff\xff\xff\xff\xff'
                  b'\x00\x00\x00\x00\x00\x00\x00\xfe\xd8\xff\xda\xc1\xfc\xa7\xa7\xa7\xa7\xa7,\xa7\xa7\xa7\xa7\xae'
                  b'\xa7\xa7\xa7\xa7\xa7\xa7\xa7\xa7\xa75\x00\x00\x00\x00\x00\x00\xfe\xd8\xff\xda\xc1\xfc\x83\x86'
                  b'\x86\x86\x86\xd1\x0c)'),
]


@pytest.mark.parametrize(("target", "data"), FIXED, ids=[f"{t}-{i}" for i, (t, _) in enumerate(FIXED)])
def test_fixed_crashes_stay_fixed(target: str, data: bytes) -> None:
    TARGETS[target](data)


@pytest.mark.parametrize("doc", ['["\udcff"]', '{"path": "src/a\ud800"}', '"\udfff"'])
def test_raw_lone_surrogate_in_text_input(make_parser, doc: str) -> None:
    """fuzz target ``parser`` (text input decoded with ``surrogateescape``): ``["\\udcff"]`` (the
    surrogate as a character, not an escape) gave ``String('\\udcff')`` on both backends, while
    ``["\\\\udcff"]`` gives ``String('\\ufffd')``. A str chunk holds such a character when an SDK's own
    ``json.loads`` decoded a ``\\ud800`` escape of the wire into the argument text, so a model can put
    it there; the value was then not encodable as UTF-8 (a terminal, a JSON log). Now with the
    default ``surrogates="replace"`` it is U+FFFD, as for the escape; ``pass`` keeps it (documented)."""
    p = make_parser()
    fragments = p.push(doc) + p.finish()
    from argstream import FragmentAggregator

    agg = FragmentAggregator()
    for f in fragments:
        agg.push(f)
    json.dumps(agg.value, ensure_ascii=False).encode("utf-8")  # UnicodeEncodeError if a surrogate is left
    assert agg.value == loads(doc)  # json.loads, surrogates as U+FFFD


@pytest.mark.parametrize("doc", ["3/2", "[1/2]", '{"a": 1 /x}', "```" + "b" * 40 + "\n1```", "```" + "b" * 40 + "}\n"])
def test_lenient_error_position_does_not_depend_on_chunking(make_parser, doc: str) -> None:
    """fuzz target ``lenient``, both backends. ``3/2`` fed whole raises ``Expecting value`` at char 1
    (the ``/``); fed as ``3/`` + ``2`` at char 2. A fence whose tag is 40 ``b``s fed whole raises at
    char 43 (the end of the tag), fed a character at a time at char 36 (past the 32-character bound).
    An error's position must not depend on the chunking (the strict parser's guarantee): expected,
    the whole feed's position at every chunking (or the streaming one, documented, at every chunking)."""
    from argstream import ArgumentStreamError

    positions = []
    for chunks in ([doc], [doc[i : i + 1] for i in range(len(doc))], [doc[:2], doc[2:]]):
        p = make_parser(lenient=True)
        with pytest.raises(ArgumentStreamError) as info:
            for chunk in chunks:
                p.push(chunk)
            p.finish()
        positions.append(info.value.pos)
    assert len(set(positions)) == 1, positions
