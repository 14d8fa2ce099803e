"""Surrogates written raw in ``str`` input: decoded as their escapes are (docs/parser.md, Surrogates).

An SDK's own ``json.loads`` turns a model's ``\\ud800`` into such a character before the parser sees
it; by default it becomes U+FFFD so that the value can be written as UTF-8, ``surrogates="pass"``
keeps it. Outside a string it is a stray character like any other.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream import ArgumentStreamError, DuplicateKeyError, flatten, iter_tool_stream
from argstream.stream import ToolCallFinished

from _support import aggregate, loads, one_unit, random_chunks, run

S = "\ud800"  # a high surrogate, as a character
T = "\udfff"  # a low one


@pytest.mark.parametrize(("doc", "pos"), [
    (S, 0), ("[" + S + "]", 1), ("[1" + T + "]", 2), ("{" + S + ": 1}", 1), ('{"a"' + S + ": 1}", 4),
    ('{"a": 1' + T + "}", 7), ("tr" + S + "e", 2), ("1" + S, 1), ('"a"' + S, 3), ("[" + S + "😀]", 1),
])
@pytest.mark.parametrize("surrogates", ["replace", "pass"])
def test_outside_a_string_a_surrogate_is_a_syntax_error(make_parser, doc: str, pos: int, surrogates: str) -> None:
    for chunks in ([doc], one_unit(doc)):
        with pytest.raises(ArgumentStreamError) as info:
            run(make_parser, chunks, surrogates=surrogates)
        assert info.value.pos == pos


def test_keys_compare_decoded(make_parser) -> None:
    """Two keys of one surrogate each are both U+FFFD by default: a duplicate; kept apart with "pass"."""
    doc = '{"' + S + '": 1, "' + T + '": 2}'
    with pytest.raises(DuplicateKeyError) as info:
        run(make_parser, [doc], catch_duplicate_keys=True)
    assert info.value.key == "\ufffd"
    assert aggregate(run(make_parser, [doc], catch_duplicate_keys=True, surrogates="pass")) == {S: 1, T: 2}


@pytest.mark.parametrize("surrogates", ["replace", "pass"])
def test_text_before_an_error_is_decoded(make_parser, surrogates: str) -> None:
    """The text a failing chunk decoded before its error (``exc.fragments``) has its surrogates decoded too."""
    p = make_parser(surrogates=surrogates)
    with pytest.raises(ArgumentStreamError) as info:
        p.push('["a' + S + "b\x01")
    assert info.value.pos == 5
    keep = S if surrogates == "pass" else "\ufffd"
    assert [flatten(f)[1].text for f in info.value.fragments] == ["a" + keep + "b"]


@pytest.mark.parametrize("surrogates", ["replace", "pass"])
def test_spans_count_a_surrogate_as_one_character(make_parser, surrogates: str) -> None:
    doc = '{"k": "a' + S + 'b"}'
    p = make_parser(flat=True, spans=True, surrogates=surrogates)
    fragments = p.push(doc)
    assert p.spans[0] == (7, 10)
    assert fragments[0][1].text == "a" + (S if surrogates == "pass" else "\ufffd") + "b"


@pytest.mark.parametrize("surrogates", ["replace", "pass"])
def test_long_strings_of_every_width(make_parser, surrogates: str) -> None:
    """Long runs (kept as slices, joined past 4096 characters) with surrogates among them, cut at random."""
    text = ("abc" * 2000 + S + "é€" * 1500 + T + "😀" * 1200 + S) * 3
    doc = json.dumps({"content": text, S: [T]}, ensure_ascii=False)
    for chunks in ([doc], random_chunks(doc, 1, 5000), random_chunks(doc, 2, 9)):
        assert aggregate(run(make_parser, chunks, surrogates=surrogates)) == loads(doc, surrogates)


LENIENT = [
    ("{'a': 'x" + S + "y'}", {"a": "x\ufffdy"}),
    ("{'" + T + "': [1,]}", {"\ufffd": [1]}),
    ('"{\\"a\\": \\"' + S + '\\"}"', {"a": "\ufffd"}),  # double-encoded: the outer string decodes it
    ('{"a": "' + S, {"a": "\ufffd"}),  # closed at finish()
]


@pytest.mark.parametrize(("doc", "expected"), LENIENT)
def test_lenient_strings(make_parser, doc: str, expected: Any) -> None:
    for chunks in ([doc], one_unit(doc)):
        assert aggregate(run(make_parser, chunks, lenient=True)) == expected
        kept = aggregate(run(make_parser, chunks, lenient=True, surrogates="pass"))
        assert json.dumps(kept) == json.dumps(expected).replace("\\ufffd", json.dumps(S if S in doc else T)[1:-1])


def _anthropic_sse(args: str, size: int) -> str:
    """An Anthropic tool call whose ``partial_json`` pieces are ``args`` cut every ``size`` characters;
    each event is ASCII JSON, so a surrogate in ``args`` is written as its escape."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m1", "content": []}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}},
    ]
    events += [{"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": args[i:i + size]}}
               for i in range(0, len(args), size)]
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": "tool_use"}}, {"type": "message_stop"}]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
@pytest.mark.parametrize("size", [1, 5, 64])
@pytest.mark.parametrize("read", [97, 1 << 20], ids=["reads-97", "one-read"])
def test_raw_sse_with_a_surrogate_escape_in_partial_json(as_bytes: bool, size: int, read: int) -> None:
    """End to end through ``iter_tool_stream`` (the compiled SSE lane reads the events that a read holds
    whole, the pure decoder the others): the SSE data holds ``\\ud800`` inside
    ``partial_json``, which the event's JSON decodes into a surrogate character of the argument text
    (and ``\\\\ud800``, an escape the parser decodes): both are U+FFFD in the final arguments."""
    content = "line one\n" * 40 + "x" + S + "y" + "😀" * 3 + "\\ud800" + "z" + T
    args = json.dumps({"path": "src/a" + S + ".py", "content": content}, ensure_ascii=False)
    body = _anthropic_sse(args, size)
    assert "\\ud800" in body and S not in body
    data: Any = body.encode() if as_bytes else body
    pieces = [data[i:i + read] for i in range(0, len(data), read)]  # whole events only in reads that hold them
    finished = [item for item in iter_tool_stream(pieces) if isinstance(item, ToolCallFinished)]
    assert len(finished) == 1
    arguments = finished[0].arguments
    assert arguments == {"path": "src/a\ufffd.py", "content": content.replace(S, "\ufffd").replace(T, "\ufffd")}
    json.dumps(arguments, ensure_ascii=False).encode("utf-8")
