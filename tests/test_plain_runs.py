"""Long runs of plain string text, scanned a block at a time by the compiled core (SSE2 where present).

A stop character (quote, backslash, control character, a surrogate in a wide ``str``, a non-ASCII byte
in UTF-8) at every position of a block, in text of every ``str`` width and as UTF-8 bytes, with
neighbours that differ from a stop character in one bit or share a byte with one (U+225C holds a
backslash's byte): the value is ``json.loads``'s, an error is raised at the character's position.
"""

from __future__ import annotations

import json

import pytest

from argstream import ArgumentStreamError

from _support import aggregate, loads, random_chunks, run

#: Plain text of each PEP 393 width: ASCII, Latin-1, two bytes and four bytes a character.
FILLERS = {
    "ascii": "abcdefgh",
    "latin1": "abc\xe9d\xff\x80\x7f",
    "ucs2": "a\u0416\u225c\u5c22\u2200 \ud7ff\ue000",
    "ucs4": "a\U0001f600\U0001005c\u0122 \U00010022~\U0010ffff",
}
#: Valid insertions: escapes, the plain characters nearest the stop set, raw surrogates (a ``str`` only).
PLAIN = [" ", "!", "#", "[", "]", "\x7f", "\u0122", "\u2022", "\ud7ff", "\ue000", "\U00010000"]
ESCAPES = ['\\n', '\\"', '\\\\', '\\u00e9', '\\ud83d\\ude00', '\\/']
SURROGATES = ["\ud800", "\udfff", "\udc00"]
CONTROLS = ["\x00", "\x01", "\x1f", "\n"]
RUN = 40


def _text(filler: str, at: int, insert: str) -> str:
    body = (filler * (RUN // len(filler) + 1))[:RUN]
    return body[:at] + insert + body[at:]


def _chunkings(doc):
    yield [doc]
    yield [doc[:17], doc[17:]]
    yield random_chunks(doc, seed=len(doc), max_len=23)


@pytest.mark.parametrize("filler", sorted(FILLERS))
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "utf8"])
def test_valid_insertions_at_every_position(make_parser, filler: str, as_bytes: bool) -> None:
    inserts = PLAIN + ESCAPES + ([] if as_bytes else SURROGATES)
    for insert in inserts:
        for at in range(RUN + 1):
            text = _text(FILLERS[filler], at, insert)
            doc = '["' + text + '", "' + text + '"]'
            data = doc.encode("utf-8") if as_bytes else doc
            expected = loads(doc)
            for chunks in _chunkings(data):
                assert aggregate(run(make_parser, chunks)) == expected, (insert, at, chunks)


@pytest.mark.parametrize("filler", sorted(FILLERS))
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "utf8"])
def test_a_control_character_fails_at_its_position(make_parser, filler: str, as_bytes: bool) -> None:
    for insert in CONTROLS:
        for at in range(RUN + 1):
            text = _text(FILLERS[filler], at, insert)
            doc = '{"k": "' + text + '"}'
            with pytest.raises(json.JSONDecodeError):
                json.loads(doc)
            pos = len('{"k": "') + at
            if as_bytes:
                data: str | bytes = doc.encode("utf-8")
                pos = len(doc[:pos].encode("utf-8"))
            else:
                data = doc
            for chunks in _chunkings(data):
                with pytest.raises(ArgumentStreamError) as info:
                    run(make_parser, chunks)
                assert info.value.pos == pos, (insert, at, chunks)


@pytest.mark.parametrize("filler", sorted(FILLERS))
def test_a_key_is_scanned_as_a_value_is(make_parser, filler: str) -> None:
    for at in range(RUN + 1):
        key = _text(FILLERS[filler], at, '\\"')
        doc = '{"' + key + '": "' + key + '"}'
        value = loads(doc)
        assert aggregate(run(make_parser, [doc])) == value
        assert aggregate(run(make_parser, [doc.encode("utf-8")])) == value
