"""argstream.compat.axio: axio's ToolArgStream API and events, on the core parser (both backends)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from argstream import ArgumentStreamError, IncompleteJSONError
from argstream.compat import axio as compat
from argstream.compat.axio import ToolArgStream, ToolFieldDelta, ToolFieldEnd, ToolFieldStart

try:
    from axio.tool_args import ToolArgStream as AxioToolArgStream
except ImportError:  # axio needs Python >= 3.12
    AxioToolArgStream = None


@pytest.fixture
def stream(make_parser):
    """``stream(tool_use_id, index=0)``: a ToolArgStream over the backend under test."""

    def make(tool_use_id: str, index: int = 0) -> ToolArgStream:
        return ToolArgStream(tool_use_id, index, parser_factory=make_parser)

    return make


def feed_all(s: ToolArgStream, chunks: list[str]) -> list:
    out = []
    for chunk in chunks:
        out.extend(s.feed(chunk))
    return out


def merged(events: list) -> list[tuple]:
    """Events as (kind, key, text) with adjacent deltas of one key merged."""
    out: list[tuple] = []
    for ev in events:
        kind = type(ev).__name__
        text = getattr(ev, "text", None)
        if kind == "ToolFieldDelta" and out and out[-1][0] == kind and out[-1][1] == ev.key:
            out[-1] = (kind, ev.key, out[-1][2] + text)
        else:
            out.append((kind, ev.key, text))
    return out


def splits(doc: str):
    """The whole document, one character at a time, and every cut into two and three pieces."""
    yield [doc]
    yield list(doc)
    for i in range(1, len(doc)):
        yield [doc[:i], doc[i:]]
    for i in range(1, len(doc), 3):
        for j in range(i + 1, len(doc), 2):
            yield [doc[:i], doc[i:j], doc[j:]]


# -- the seed's examples, verbatim ------------------------------------------------


def test_seed_feed_example(stream):
    stream_ = stream("call_1", index=0)

    # Feed first chunk
    events = stream_.feed('{"path":"/tmp/f')
    assert len(events) == 2
    assert isinstance(events[0], ToolFieldStart)
    assert events[0].key == "path"
    assert isinstance(events[1], ToolFieldDelta)
    assert events[1].text == "/tmp/f"

    # Feed second chunk
    events = stream_.feed('oo.py"}')
    assert events[0].text == "oo.py"
    assert isinstance(events[1], ToolFieldEnd)
    assert stream_.current_key == "path"  # retains last completed key


def test_seed_string_value_example(stream):
    s = stream("call_1")
    assert s.feed('{"pat') == []
    assert s.feed('h":"/tm') == [ToolFieldStart(0, "call_1", "path"), ToolFieldDelta(0, "call_1", "path", "/tm")]
    assert s.feed('p/file"}') == [ToolFieldDelta(0, "call_1", "path", "p/file"), ToolFieldEnd(0, "call_1", "path")]
    assert s.done


def test_seed_object_value_example(stream):
    s = stream("call_2")
    events = s.feed('{"config":{"re')
    assert events == [ToolFieldStart(0, "call_2", "config"), ToolFieldDelta(0, "call_2", "config", '{"re')]
    events = s.feed('try":3}}')
    # The seed's comment shows 'try":3}}'; axio (and this layer) emit the value's own text: the last
    # '}' closes the arguments object, not the value.
    assert events == [ToolFieldDelta(0, "call_2", "config", 'try":3}'), ToolFieldEnd(0, "call_2", "config")]
    assert s.done


def test_seed_escape_example(stream):
    s = stream("call_3")
    events = s.feed('{"msg":"Hello\\nWorld"}')
    assert events == [
        ToolFieldStart(0, "call_3", "msg"),
        ToolFieldDelta(0, "call_3", "msg", "Hello\nWorld"),
        ToolFieldEnd(0, "call_3", "msg"),
    ]


def test_seed_surrogate_pair_example(stream):
    s = stream("call_4")
    # U+1F600 (grinning face) = \uD83D\uDE00
    events = s.feed('{"emoji":"\\uD83D\\uDE00"}')
    assert events[1] == ToolFieldDelta(0, "call_4", "emoji", "😀")


def test_seed_lone_high_surrogate_becomes_replacement_character(stream):
    s = stream("call_4")
    events = s.feed('{"emoji":"\\uD83Dx"}')
    assert events[1].text == "\ufffdx"


@pytest.mark.parametrize(
    ("escape", "result"),
    # The seed's table, as written there (Python literals of the JSON escapes), and \\uXXXX.
    [("\\n", "\n"), ("\\t", "\t"), ("\\r", "\r"), ("\\b", "\b"), ("\\f", "\f"),
     ("\\\"", '"'), ("\\\\", "\\"), ("\\/", "/"), ("\\u00e9", "é")],
)
def test_seed_escape_table(stream, escape, result):
    for chunks in splits('{"k":"<' + escape + '>"}'):
        events = feed_all(stream("c"), chunks)
        assert merged(events) == [("ToolFieldStart", "k", None), ("ToolFieldDelta", "k", f"<{result}>"),
                                  ("ToolFieldEnd", "k", None)]


def test_seed_usage_pattern(stream):
    """The seed's usage loop, driven by a scripted stream of (tool_use_id, partial_json) deltas."""
    parsers: dict[str, ToolArgStream] = {}
    shown: list[str] = []
    script = [("start", "t1", "write_file"), ("delta", "t1", '{"path": "a.py", "con'),
              ("delta", "t1", 'tent": "print(\\"hi\\")\\n"}'), ("result", "t1", "ok")]
    for kind, tid, payload in script:
        if kind == "start":
            parsers[tid] = stream(tid)
            shown.append(f"▶ {payload}")
        elif kind == "delta":
            for field_event in parsers[tid].feed(payload):
                match field_event:
                    case ToolFieldStart(key=key):
                        shown.append(f"\n  {key}: ")
                    case ToolFieldDelta(text=text):
                        shown.append(text)
                    case ToolFieldEnd():
                        pass
        else:
            shown.append(f"\n{payload}")
            parsers.pop(tid, None)
    assert "".join(shown) == '▶ write_file\n  path: a.py\n  content: print("hi")\n\nok'


# -- events and attributes -----------------------------------------------------------


def test_event_fields_match_axio():
    assert [f.name for f in dataclasses.fields(ToolFieldStart)] == ["index", "tool_use_id", "key"]
    assert [f.name for f in dataclasses.fields(ToolFieldDelta)] == ["index", "tool_use_id", "key", "text"]
    assert [f.name for f in dataclasses.fields(ToolFieldEnd)] == ["index", "tool_use_id", "key"]
    ev = ToolFieldDelta(3, "id", "k", "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.text = "y"  # type: ignore[misc]
    assert hash(ev) == hash(ToolFieldDelta(3, "id", "k", "x"))
    assert ToolFieldStart(0, "id", "k") != ToolFieldEnd(0, "id", "k")


@pytest.mark.skipif(AxioToolArgStream is None, reason="axio is not installed")
def test_event_fields_equal_axios_own():
    from axio import events as axio_events

    for ours in (ToolFieldStart, ToolFieldDelta, ToolFieldEnd):
        theirs = getattr(axio_events, ours.__name__)
        assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    converted = compat.to_axio(ToolFieldDelta(1, "id", "k", "x"))
    assert converted == axio_events.ToolFieldDelta(1, "id", "k", "x")


def test_index_and_tool_use_id_on_every_event(stream):
    events = stream("call_9", 7).feed('{"a": 1, "b": "x"}')
    assert {(ev.index, ev.tool_use_id) for ev in events} == {(7, "call_9")}
    assert stream("c").feed('{"a": 1}')[0].index == 0


def test_current_key_and_done(stream):
    s = stream("c")
    assert (s.current_key, s.done) == ("", False)
    s.feed(' {"fi')
    assert s.current_key == ""  # the key is not complete
    s.feed('rst"')
    assert s.current_key == "first"  # known at its closing quote, before the ':'
    assert s.feed(" ") == []
    assert s.feed(":") == [ToolFieldStart(0, "c", "first")]  # the field starts at its ':'
    s.feed('{"nested": "v"}, "sec')
    assert s.current_key == "first"  # nested keys never change it; the next key is not complete
    s.feed('ond": [1]')
    assert (s.current_key, s.done) == ("second", False)
    s.feed("}")
    assert (s.current_key, s.done) == ("second", True)  # kept after the last value
    assert s.feed("  \n") == []


def test_key_with_escapes_is_decoded(stream):
    for chunks in splits('{"a\\"b\\u00e9\\\\":1}'):
        s = stream("c")
        events = feed_all(s, chunks)
        assert s.current_key == 'a"bé\\'
        assert merged(events)[0] == ("ToolFieldStart", 'a"bé\\', None)


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ('{"n": -12.5e+3, "t": true, "f": false, "z": null}',
         [("n", "-12.5e+3"), ("t", "true"), ("f", "false"), ("z", "null")]),
        ('{"o": {"a": [1, "]}", {"b": "\\"}"}], "c": {}}, "e": []}',
         [("o", '{"a": [1, "]}", {"b": "\\"}"}], "c": {}}'), ("e", "[]")]),
        ('{\n  "x": [\n    1,\n    2\n  ],\n  "y" : 0\n}\n', [("x", "[\n    1,\n    2\n  ]"), ("y", "0")]),
        ('{"s": "", "u": "\\u0000\\ud83d\\ude00é\\/"}', [("s", None), ("u", "\x00😀é/")]),
    ],
)
def test_values_every_split(stream, doc, expected):
    want: list[tuple] = []
    for key, text in expected:
        want.append(("ToolFieldStart", key, None))
        if text is not None:
            want.append(("ToolFieldDelta", key, text))
        want.append(("ToolFieldEnd", key, None))
    for chunks in splits(doc):
        s = stream("c")
        assert merged(feed_all(s, chunks)) == want, chunks
        assert s.done


def test_literal_ends_at_its_terminator_like_axio(stream):
    s = stream("c")
    assert s.feed('{"t": true') == [ToolFieldStart(0, "c", "t"), ToolFieldDelta(0, "c", "t", "true")]
    assert s.feed("}") == [ToolFieldEnd(0, "c", "t")]


def test_partial_escape_is_held_back(stream):
    s = stream("c")
    assert s.feed('{"k": "a\\') == [ToolFieldStart(0, "c", "k"), ToolFieldDelta(0, "c", "k", "a")]
    assert s.feed("u00") == []
    assert s.feed("e9") == [ToolFieldDelta(0, "c", "k", "é")]
    assert s.feed("\\ud83d") == []  # a high surrogate waits for its pair
    assert s.feed('\\ude00"}') == [ToolFieldDelta(0, "c", "k", "😀"), ToolFieldEnd(0, "c", "k")]


def test_empty_object_and_whitespace(stream):
    s = stream("c")
    assert s.feed(" \n{ }") == []
    assert s.done


def test_finish(stream):
    s = stream("c")
    s.feed('{"a": 1}')
    assert s.finish() == []
    s = stream("c")
    s.feed('{"a": "x')
    with pytest.raises(IncompleteJSONError):
        s.finish()


def test_str_chunks_only(stream):
    with pytest.raises(TypeError):
        stream("c").feed(b'{"a": 1}')  # type: ignore[arg-type]


# -- where axio accepts invalid JSON, this layer raises ---------------------------------

INVALID = [
    ("[1, {\"a\": 1}]", 0),  # root not an object: axio reports the inner object's fields
    ('"x"', 0),  # root not an object: axio reports nothing and never finishes
    ("\n  7", 3),  # line 2, column 3
    ('{"a": 1 junk, "b": 2}', 8),  # junk between fields: axio skips it
    ('{"a"::1}', 5),  # axio reports ':1' as the value of "a"
    ('{"a":,"b":1}', 5),  # missing value: axio reports ',"b":1' under "a"
    ('{"a" "b": 1}', 5),  # missing ':': axio reports b's value 1 under "a"
    ('{"a": "x" "y"}', 10),  # missing ',': axio drops "y"
    ('{"a": 1}{"b": 2}', 8),  # data after the object: axio parses a second object
    ('{"a": "\\x"}', 8),  # invalid escape: axio decodes it as 'x'
    ('{"a": 1,}', 8),  # trailing comma
    ('{"a": 01}', 7),  # leading zero
    ('{"a": tru}', 9),  # invalid literal
    ('{"a": [1,}]}', 9),  # invalid nested value: axio passes it through as raw text
    ('{"a": "\x01"}', 7),  # raw control character in a string
    ('{a: 1}', 1),  # unquoted key: axio skips to the next quote
]


@pytest.mark.parametrize(("doc", "pos"), INVALID)
def test_invalid_json_raises(stream, doc, pos):
    for chunks in ([doc], list(doc)):
        s = stream("c")
        with pytest.raises(ArgumentStreamError) as info:
            feed_all(s, chunks)
            s.finish()
        assert info.value.pos == pos, chunks
        with pytest.raises(ArgumentStreamError) as again:  # sticky
            s.feed("{")
        assert again.value.pos == pos


@pytest.mark.skipif(AxioToolArgStream is None, reason="axio is not installed")
@pytest.mark.parametrize(("doc", "pos"), INVALID)
def test_axio_itself_accepts_the_invalid_inputs(doc, pos):
    """The documented difference: axio raises on none of them."""
    AxioToolArgStream("c").feed(doc)


def test_root_not_object_error_position_and_message(stream):
    s = stream("c")
    s.feed("  \n")
    with pytest.raises(ArgumentStreamError) as info:
        s.feed("\n [")
    err = info.value
    assert (err.pos, err.line, err.col) == (5, 3, 2)
    assert "must be a JSON object" in err.msg


def test_error_keeps_the_events_before_it(stream):
    s = stream("c")
    with pytest.raises(ArgumentStreamError) as info:
        s.feed('{"a": 1 junk')
    assert info.value.events == [ToolFieldStart(0, "c", "a"), ToolFieldDelta(0, "c", "a", "1"),
                                 ToolFieldEnd(0, "c", "a")]
    s = stream("c")
    with pytest.raises(ArgumentStreamError) as info:
        s.feed('{"a"::1}')
    assert info.value.events == [ToolFieldStart(0, "c", "a")]  # nothing from the invalid value


def test_lone_surrogates_become_replacement_characters(stream):
    events = stream("c").feed('{"a": "\\udc00\\ud800\\ud800\\udc00"}')
    assert events[1].text == "\ufffd\ufffd\U00010000"


def test_deep_nesting_limit(make_parser):
    s = ToolArgStream("c", max_depth=3, parser_factory=make_parser)
    s.feed('{"a": [[1]]}')
    s = ToolArgStream("c", max_depth=3, parser_factory=make_parser)
    with pytest.raises(ArgumentStreamError):
        s.feed('{"a": [[[1]]]}')


# -- on the core tokenizer: no scanner of its own -------------------------------------------


@pytest.fixture
def make_tokenizer(make_parser):
    """The ``Tokenizer`` class of the backend under test."""
    from argstream import parser as _parser

    return _parser.TokenizerC if make_parser is _parser.IncrementalArgParserC else _parser.TokenizerPy


class _SpyTokenizer:
    """Wraps a core tokenizer: counts pushes and sink callbacks."""

    def __init__(self, cls, **kwargs) -> None:
        self.tok = cls(**kwargs)
        self.pushes = 0
        self.calls = 0

    def push(self, chunk, sink):
        self.pushes += 1
        spy = self

        class Counting:
            def __getattr__(self, name):
                method = getattr(sink, name)

                def call(*args):
                    spy.calls += 1
                    return method(*args)

                return call

        self.tok.push(chunk, Counting())

    def finish(self, sink):
        self.tok.finish(sink)

    state = property(lambda self: self.tok.state)
    pos = property(lambda self: self.tok.pos)
    offset = property(lambda self: self.tok.offset)


def test_tokenizer_factory_gives_the_same_events(stream, make_tokenizer):
    doc = '{"path": "a\\"b", "n": -12.5e+3 , "t": true, "arr": [null, {"k": []}], "s": "caf\u00e9 \\ud83d\\ude00"}'
    for chunks in splits(doc):
        ours = ToolArgStream("c", tokenizer_factory=make_tokenizer)
        assert feed_all(ours, chunks) == feed_all(stream("c"), chunks)
        assert ours.done


def test_parser_factory_must_be_a_core_parser_class():
    with pytest.raises(TypeError):
        ToolArgStream("c", parser_factory=lambda **kwargs: None)


def test_one_push_one_callback_one_event_per_chunk_inside_a_string(make_tokenizer):
    spy = None

    def factory(**kwargs):
        nonlocal spy
        spy = _SpyTokenizer(make_tokenizer, **kwargs)
        return spy

    s = ToolArgStream("c", tokenizer_factory=factory)
    s.feed('{"content": "')
    content = 'line \\"one\\"\\n\\tline \\u00e9 two\\\\ ' * 20
    chunks = [content[i : i + 8] for i in range(0, len(content), 8)]
    pushes, calls = spy.pushes, spy.calls
    events = [s.feed(chunk) for chunk in chunks]
    assert spy.pushes - pushes == len(chunks)
    assert spy.calls - calls <= len(chunks)  # a chunk that ends inside an escape may have no data
    assert all(len(evs) <= 1 for evs in events)
    assert "".join(ev.text for evs in events for ev in evs) == json.loads(f'"{content}"')


def test_scalar_end_waits_for_the_next_character_like_axio(stream):
    s = stream("c")
    assert s.feed('{"n": 12') == [ToolFieldStart(0, "c", "n"), ToolFieldDelta(0, "c", "n", "12")]
    assert s.feed("3") == [ToolFieldDelta(0, "c", "n", "3")]  # a number cut by a chunk: one delta per feed
    assert s.feed(" ") == [ToolFieldEnd(0, "c", "n")]
    assert s.feed(', "t": tr') == [ToolFieldStart(0, "c", "t"), ToolFieldDelta(0, "c", "t", "tr")]
    assert s.feed("ue") == [ToolFieldDelta(0, "c", "t", "ue")]
    assert s.feed("") == []
    assert s.feed("\n") == [ToolFieldEnd(0, "c", "t")]
    assert s.feed(', "z":') == [ToolFieldStart(0, "c", "z")]
    assert s.feed(" null") == [ToolFieldDelta(0, "c", "z", "null")]
    assert s.feed('}') == [ToolFieldEnd(0, "c", "z")]
    assert s.done


def test_container_value_is_sliced_per_feed(stream):
    s = stream("c")
    assert s.feed('{"a": [1, {"b"') == [ToolFieldStart(0, "c", "a"), ToolFieldDelta(0, "c", "a", '[1, {"b"')]
    assert s.feed("   ") == [ToolFieldDelta(0, "c", "a", "   ")]
    assert s.feed(': "]"}') == [ToolFieldDelta(0, "c", "a", ': "]"}')]
    assert s.feed('], "c": {}}') == [ToolFieldDelta(0, "c", "a", "]"), ToolFieldEnd(0, "c", "a"),
                                     ToolFieldStart(0, "c", "c"), ToolFieldDelta(0, "c", "c", "{}"),
                                     ToolFieldEnd(0, "c", "c")]
    assert s.current_key == "c"


@pytest.mark.parametrize(
    ("chunks", "pos", "line", "col"),
    [
        (["t}"], 0, 1, 1),  # the core raises at '}' (an invalid literal); the root starts at 't'
        (["\n tr", "ue"], 2, 2, 2),  # a literal root cut by a chunk
        ([" ", "-1", "2"], 1, 1, 2),  # a number root, before it is complete
        (["\n\n", ' "x"'], 3, 3, 2),
        (["  x"], 2, 1, 3),
    ],
)
def test_root_not_object_at_its_first_character(stream, chunks, pos, line, col):
    s = stream("c")
    with pytest.raises(ArgumentStreamError) as info:
        feed_all(s, chunks)
    assert (info.value.msg, info.value.pos, info.value.line, info.value.col) == (
        "Expecting '{': tool arguments must be a JSON object", pos, line, col)
    assert info.value.events == []


@pytest.mark.parametrize(
    ("doc", "events"),
    [
        # a complete number or literal before an invalid character: its text, not its end
        ('{"a": 1x', [("ToolFieldStart", "a", None), ("ToolFieldDelta", "a", "1")]),
        ('{"a": true[', [("ToolFieldStart", "a", None), ("ToolFieldDelta", "a", "true")]),
        # the terminator was read: the end too
        ('{"a": true x', [("ToolFieldStart", "a", None), ("ToolFieldDelta", "a", "true"), ("ToolFieldEnd", "a", None)]),
        # the string text decoded before an invalid escape
        ('{"a": "x\\u00e9\\q', [("ToolFieldStart", "a", None), ("ToolFieldDelta", "a", "xé")]),
        # the ':' was read, the value is invalid
        ('{"a" :]', [("ToolFieldStart", "a", None)]),
        ('{"a" ]', []),
        # nothing of a container value before its error
        ('{"a": [1, 2,]', [("ToolFieldStart", "a", None)]),
    ],
)
def test_error_events_are_those_of_the_text_before_it(stream, doc, events):
    s = stream("c")
    with pytest.raises(ArgumentStreamError) as info:
        s.feed(doc)
    assert merged(info.value.events) == events


def test_finish_error_has_no_events(stream):
    s = stream("c")
    s.feed('{"a": [1')
    with pytest.raises(IncompleteJSONError) as info:
        s.finish()
    assert info.value.events == []
    with pytest.raises(IncompleteJSONError):  # sticky
        s.feed("]}")
