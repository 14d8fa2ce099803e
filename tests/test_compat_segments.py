"""argstream.compat.segments: write_file / patch_file tool calls as segment events (both backends)."""

from __future__ import annotations

import json

import pytest

from argstream import ArgumentStreamError, IncompleteJSONError
from argstream.compat import segments as seg
from argstream.compat.segments import (
    PATCH_FILE,
    SEGMENT_CONTENT,
    SEGMENT_END,
    SEGMENT_START,
    TEXT,
    TOOL_CALL,
    WRITE_FILE,
    SegmentEvent,
    SegmentHandler,
    ToolInvocation,
)
from argstream.events import (
    ArgumentChunk,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    Reasoning,
    ToolCall,
    ToolCallStart,
)

# Every JSON escape, split-prone unicode (a surrogate pair, BMP escapes), and raw non-ASCII.
CONTENT_JSON = r'def f():\n\treturn \"q\" + s[1:] \\ \/ \b\f\r \u00e9\u4E2D \ud83d\ude00 é中😀 \u0000'
CONTENT = json.loads(f'"{CONTENT_JSON}"')
PATH_JSON = r'src/caf\u00e9/\"x\".py'
PATH = json.loads(f'"{PATH_JSON}"')


@pytest.fixture
def handler(make_parser):
    """``handler(**kwargs)``: a SegmentHandler over the backend under test."""

    def make(**kwargs) -> SegmentHandler:
        return SegmentHandler(parser_factory=make_parser, **kwargs)

    return make


def chunkings(text: str):
    """Whole, one character at a time, every cut into two, and a spread of cuts into three."""
    yield [text]
    yield list(text)
    for i in range(1, len(text)):
        yield [text[:i], text[i:]]
    for i in range(1, len(text), 7):
        for j in range(i + 1, len(text), 5):
            yield [text[:i], text[i:j], text[j:]]


def run(h: SegmentHandler, call_id: str, name: str, chunks: list[str], *, end: bool = True) -> list[SegmentEvent]:
    events = h.start(call_id, name)
    for chunk in chunks:
        events += h.feed(call_id, chunk)
    events += h.end(call_id) if end else h.finalize()
    return events


def check_file_segment(events, seg_id, seg_type, *, content, path, path_in_start):
    """One START first, one END last, the decoded content in between, path where it belongs."""
    assert [e.segment_id for e in events] == [seg_id] * len(events)
    assert events[0].event_type is SEGMENT_START and events[0].segment_type is seg_type
    assert events[-1].event_type is SEGMENT_END
    middle = events[1:-1]
    assert all(e.event_type is SEGMENT_CONTENT for e in middle)
    assert all(e.delta for e in middle)
    assert "".join(e.delta for e in middle) == content
    start_meta, end_meta = events[0].metadata, events[-1].metadata
    if path_in_start:
        assert start_meta["path"] == path
    else:
        assert "path" not in start_meta
    if path is None:
        assert "path" not in end_meta
    else:
        assert end_meta["path"] == path
    return end_meta


# -- the seed's testing plan ---------------------------------------------------------


def test_write_file_streaming(handler):
    h = handler()
    events = run(h, "call_1", "write_file", ['{"path": "a', '.py", "content": "line 1\\nli', 'ne 2\\n"}'])
    check_file_segment(events, "call_1", WRITE_FILE, content="line 1\nline 2\n", path="a.py", path_in_start=True)
    assert [e.delta for e in events if e.event_type is SEGMENT_CONTENT] == ["line 1\nli", "ne 2\n"]
    assert h.invocations == [ToolInvocation("call_1", "write_file", {"path": "a.py", "content": "line 1\nline 2\n"})]


def test_patch_file_streaming(handler):
    h = handler()
    patch = "@@ -1 +1 @@\n-old\n+new\n"
    text = json.dumps({"path": "b.py", "patch": patch})
    events = run(h, "call_2", "patch_file", [text[:20], text[20:31], text[31:]])
    check_file_segment(events, "call_2", PATCH_FILE, content=patch, path="b.py", path_in_start=True)
    assert h.invocations == [ToolInvocation("call_2", "patch_file", {"path": "b.py", "patch": patch})]


def test_escapes(handler):
    text = '{"path": "c.py", "content": "a\\nb \\"c\\" d\\\\e"}'
    for chunks in chunkings(text):
        h = handler()
        events = run(h, "c", "write_file", chunks)
        check_file_segment(events, "c", WRITE_FILE, content='a\nb "c" d\\e', path="c.py", path_in_start=True)


def test_out_of_order_keys(handler):
    h = handler()
    events = run(h, "c", "write_file", ['{"content": "x', 'y", "path": "', 'd.py"}'])
    check_file_segment(events, "c", WRITE_FILE, content="xy", path="d.py", path_in_start=False)
    assert h.invocations[0].arguments == {"content": "xy", "path": "d.py"}


def test_non_file_tools_unchanged(handler):
    h = handler()
    chunks = ['{"query": "wea', 'ther", "n": [1, 2]}']
    events = run(h, "call_3", "search", chunks)
    assert {e.segment_type for e in events} == {TOOL_CALL}
    assert [e.event_type for e in events] == [SEGMENT_START, SEGMENT_CONTENT, SEGMENT_CONTENT, SEGMENT_END]
    assert events[0].metadata == {"tool_name": "search"}
    assert [e.delta for e in events[1:3]] == chunks  # raw argument text, as today
    assert events[-1].metadata == {"tool_name": "search", "arguments": {"query": "weather", "n": [1, 2]}}
    assert h.invocations == [ToolInvocation("call_3", "search", {"query": "weather", "n": [1, 2]})]


def test_one_invocation_per_call_id(handler):
    h = handler()
    events = run(h, "call_1", "write_file", ['{"path": "a.py", "content": "x"}'])
    assert h.start("call_1", "write_file") == []  # the same id again: ignored
    assert h.feed("call_1", '{"path": "b.py"}') == []
    assert h.end("call_1") == []
    assert h.end("call_1") == []
    assert h.finalize() == []
    assert [e.event_type for e in events].count(SEGMENT_START) == 1
    assert [i.id for i in h.invocations] == ["call_1"]


def test_file_tools_never_emit_tool_call_segments(handler):
    h = handler()
    events = run(h, "c", "write_file", ['{"path": "a", "content": "b"}'])
    assert {e.segment_type for e in events} == {WRITE_FILE}
    assert len(h.invocations) == 1


# -- the issue's cases, every chunking, escapes and unicode split everywhere ---------------


def test_path_first_every_chunking(handler):
    text = f'{{"path": "{PATH_JSON}", "content": "{CONTENT_JSON}"}}'
    for chunks in chunkings(text):
        h = handler()
        events = run(h, "id1", "write_file", chunks)
        check_file_segment(events, "id1", WRITE_FILE, content=CONTENT, path=PATH, path_in_start=True)
        assert h.invocations == [ToolInvocation("id1", "write_file", {"path": PATH, "content": CONTENT})]


def test_content_before_path_every_chunking(handler):
    text = f'{{"content": "{CONTENT_JSON}", "path": "{PATH_JSON}"}}'
    for chunks in chunkings(text):
        h = handler()
        events = run(h, "id2", "write_file", chunks)
        check_file_segment(events, "id2", WRITE_FILE, content=CONTENT, path=PATH, path_in_start=False)
        assert h.invocations[0].arguments == {"content": CONTENT, "path": PATH}


def test_path_never_arriving_every_chunking(handler):
    text = f'{{"content": "{CONTENT_JSON}"}}'
    for chunks in chunkings(text):
        h = handler()
        events = run(h, "id3", "write_file", chunks)
        check_file_segment(events, "id3", WRITE_FILE, content=CONTENT, path=None, path_in_start=False)
        assert h.invocations[0].arguments == {"content": CONTENT}


def test_nested_path_keys_are_not_the_path_every_chunking(handler):
    text = (f'{{"options": {{"path": "nested/wrong", "deeper": [{{"path": "wrong/too"}}]}}, '
            f'"content": "{CONTENT_JSON}", "meta": [{{"path": "x"}}], "path": "{PATH_JSON}"}}')
    for chunks in chunkings(text):
        h = handler()
        events = run(h, "id4", "write_file", chunks)
        check_file_segment(events, "id4", WRITE_FILE, content=CONTENT, path=PATH, path_in_start=False)
        assert h.invocations[0].arguments["options"] == {"path": "nested/wrong", "deeper": [{"path": "wrong/too"}]}


def test_nested_path_and_no_top_level_path(handler):
    text = '{"options": {"path": "nested"}, "patch": "@@\\u00e9"}'
    for chunks in chunkings(text):
        events = run(handler(), "id5", "patch_file", chunks)
        check_file_segment(events, "id5", PATCH_FILE, content="@@é", path=None, path_in_start=False)


def test_nested_content_key_is_not_the_content(handler):
    text = '{"path": "p", "extra": {"content": "not this"}, "content": "this"}'
    for chunks in chunkings(text):
        events = run(handler(), "id6", "write_file", chunks)
        check_file_segment(events, "id6", WRITE_FILE, content="this", path="p", path_in_start=True)


def test_interrupted_stream_every_chunking(handler):
    text = f'{{"path": "{PATH_JSON}", "content": "{CONTENT_JSON}'  # cut before the end
    for chunks in chunkings(text):
        h = handler()
        events = run(h, "id7", "write_file", chunks, end=False)
        end_meta = check_file_segment(events, "id7", WRITE_FILE, content=CONTENT, path=PATH, path_in_start=True)
        assert end_meta["interrupted"] is True
        assert "arguments" not in end_meta
        assert h.invocations == []


def test_interrupted_before_path_completes(handler):
    h = handler()
    events = run(h, "id8", "write_file", ['{"content": "abc", "path": "half'], end=False)
    end_meta = check_file_segment(events, "id8", WRITE_FILE, content="abc", path=None, path_in_start=False)
    assert end_meta["interrupted"] is True and h.invocations == []


def test_interrupted_before_any_argument(handler):
    h = handler()
    events = h.start("id9", "write_file") + h.finalize()
    assert [e.event_type for e in events] == [SEGMENT_START, SEGMENT_END]
    assert events[-1].metadata == {"tool_name": "write_file", "interrupted": True}
    assert h.invocations == []


def test_end_with_incomplete_json_is_interrupted(handler):
    h = handler()
    events = run(h, "id10", "write_file", ['{"path": "a.py", "content": "ab'])
    meta = events[-1].metadata
    assert meta["interrupted"] is True and meta["error"].startswith("Unterminated string")
    assert isinstance(h.errors["id10"], IncompleteJSONError)
    assert h.invocations == []


ESCAPES = ["\\u00e9", "\\ud83d\\ude00", "\\n", "\\\\", '\\"', "\\/", "\\b", "\\f", "\\t", "\\r"]


@pytest.mark.parametrize("escape", ESCAPES)
def test_every_escape_split_at_every_point(handler, escape):
    text = '{"path": "p", "content": "<' + escape + '>"}'
    want = "<" + json.loads(f'"{escape}"') + ">"
    for chunks in chunkings(text):
        events = run(handler(), "e", "write_file", chunks)
        check_file_segment(events, "e", WRITE_FILE, content=want, path="p", path_in_start=True)


def test_lone_surrogate_escape_becomes_replacement_character(handler):
    events = run(handler(), "e", "write_file", ['{"content": "a\\ud800b"}'])
    assert events[1].delta == "a\ufffdb"


# -- errors ------------------------------------------------------------------------


@pytest.mark.parametrize("text", ['{"path": "a", "content": "x\\q"}', '{"path": "a" "content": "x"}',
                                  '{"path": "a"}}', '["path", "a"]', '"a"', "42"])
@pytest.mark.parametrize("name", ["write_file", "search"])
def test_invalid_json_ends_with_error_and_no_invocation(handler, text, name):
    for chunks in ([text], list(text)):
        h = handler()
        events = run(h, "bad", name, chunks)
        assert [e.event_type for e in events if e.event_type is not SEGMENT_CONTENT] == [SEGMENT_START, SEGMENT_END]
        meta = events[-1].metadata
        assert meta["error"] == str(h.errors["bad"])
        assert isinstance(h.errors["bad"], ArgumentStreamError)
        assert "arguments" not in meta
        assert h.invocations == []


def test_root_not_object_error(handler):
    h = handler()
    events = run(h, "bad", "write_file", ["  [1]"])
    err = h.errors["bad"]
    assert err.pos == 2 and "must be a JSON object" in err.msg
    assert events[-1].metadata["error"] == str(err)
    json.dumps([e.to_dict() for e in events])  # the wire form stays JSON


def test_no_arguments_is_an_empty_object(handler):
    h = handler()
    events = run(h, "n", "list_files", [])
    assert events[-1].metadata == {"tool_name": "list_files", "arguments": {}}
    assert h.invocations == [ToolInvocation("n", "list_files", {})]
    h = handler()
    run(h, "w", "write_file", [" "])
    assert h.invocations == [ToolInvocation("w", "write_file", {})]


# -- configuration ---------------------------------------------------------------------


def test_configurable_tool_names_and_content_keys(handler):
    h = handler(file_tools={"create_file": "write_file", "apply_diff": PATCH_FILE}, content_keys={PATCH_FILE: "diff"})
    events = run(h, "a", "create_file", ['{"path": "x", "content": "1"}'])
    check_file_segment(events, "a", WRITE_FILE, content="1", path="x", path_in_start=True)
    assert events[0].metadata["tool_name"] == "create_file"
    events = run(h, "b", "apply_diff", ['{"path": "y", "diff": "2"}'])
    check_file_segment(events, "b", PATCH_FILE, content="2", path="y", path_in_start=True)
    events = run(h, "c", "write_file", ['{"path": "z", "content": "3"}'])  # not configured: a tool_call
    assert {e.segment_type for e in events} == {TOOL_CALL}
    assert [i.name for i in h.invocations] == ["create_file", "apply_diff", "write_file"]
    with pytest.raises(ValueError):
        SegmentHandler(file_tools={"x": "tool_call"})


def test_callbacks_and_wire_form(handler):
    seen: list[SegmentEvent] = []
    invoked: list[ToolInvocation] = []
    h = handler(on_segment_event=seen.append, on_tool_invocation=invoked.append)
    events = run(h, "c", "write_file", ['{"path": "a", "content": "b"}'])
    assert seen == events and invoked == h.invocations
    assert events[0].to_dict() == {"type": "SEGMENT_START", "segment_id": "c", "segment_type": "write_file",
                                   "payload": {"metadata": {"tool_name": "write_file", "path": "a"}}}
    assert events[1].to_dict()["payload"] == {"delta": "b"}
    assert seg.SEGMENT_START.value == "SEGMENT_START" and seg.WRITE_FILE.value == "write_file"


def test_reset(handler):
    h = handler()
    run(h, "c", "write_file", ['{"content": "x"}'])
    h.start("d", "search")
    h.reset()
    assert h.invocations == [] and h.finalize() == []
    run(h, "c", "write_file", ['{"content": "y"}'])  # the id may be used again after a reset
    assert [i.arguments for i in h.invocations] == [{"content": "y"}]


def test_missing_call_id_gets_a_generated_segment_id(handler):
    h = handler(segment_id_prefix="seg-")
    events = h.start("", "write_file", key=0) + h.feed(0, '{"content": "x"}') + h.end(0)
    ids = {e.segment_id for e in events}
    assert len(ids) == 1 and ids.pop().startswith("seg-")
    assert h.invocations[0].id == events[0].segment_id


# -- argstream events (providers) ------------------------------------------------------


def tool_part(index, part):
    return Part(index, ToolCall(part))


def test_handle_argstream_events(handler):
    h = handler()
    stream = [
        Part(0, Message("Writing the file.")),
        Flush(0),
        tool_part(1, ToolCallStart("toolu_1", "write_file")),
        tool_part(1, ArgumentChunk('{"path": "a.py", "content": "x\\u')),
        tool_part(1, ArgumentChunk('00e9"}')),
        Flush(1),
        tool_part(2, ToolCallStart("toolu_2", "search")),
        tool_part(2, ArgumentChunk('{"q": 1}')),
        Flush(2),
        Part(3, Reasoning("ignored")),
        Finished(FinishReason.TOOL_USE),
    ]
    events = h.handle_all(stream)
    text = [e for e in events if e.segment_type is TEXT]
    assert [e.event_type for e in text] == [SEGMENT_START, SEGMENT_CONTENT, SEGMENT_END]
    assert text[1].delta == "Writing the file." and "interrupted" not in text[2].metadata
    files = [e for e in events if e.segment_id == "toolu_1"]
    check_file_segment(files, "toolu_1", WRITE_FILE, content="xé", path="a.py", path_in_start=True)
    assert [e.segment_type for e in events if e.segment_id == "toolu_2"] == [TOOL_CALL] * 3
    assert h.invocations == [ToolInvocation("toolu_1", "write_file", {"path": "a.py", "content": "xé"}),
                             ToolInvocation("toolu_2", "search", {"q": 1})]
    with pytest.raises(TypeError):
        h.handle("not an event")


def test_handle_interrupted_by_finished(handler):
    h = handler()
    events = h.handle_all([
        tool_part(0, ToolCallStart("t", "patch_file")),
        tool_part(0, ArgumentChunk('{"path": "a", "patch": "@@')),
        Part(1, Message("partial")),
        Finished(FinishReason.ERROR),
    ])
    ends = [e for e in events if e.event_type is SEGMENT_END]
    assert {e.segment_type for e in ends} == {PATCH_FILE, TEXT}
    assert all(e.metadata["interrupted"] is True for e in ends)
    assert h.invocations == []


def test_handle_name_and_id_arriving_late(handler):
    h = handler()
    events = h.handle_all([
        tool_part(0, ArgumentChunk('{"path": "a", ')),  # before any identity
        tool_part(0, ToolCallStart("call_9", "")),
        tool_part(0, ArgumentChunk('"content": "b')),
        tool_part(0, ToolCallStart("", "write_file")),  # the name, later
        tool_part(0, ArgumentChunk('c"}')),
        Flush(0),
        Finished(FinishReason.TOOL_USE),
    ])
    check_file_segment(events, "call_9", WRITE_FILE, content="bc", path="a", path_in_start=True)
    assert h.invocations == [ToolInvocation("call_9", "write_file", {"path": "a", "content": "bc"})]


def test_handle_several_responses_reusing_indexes(handler):
    h = handler()
    one = [tool_part(0, ToolCallStart("a", "write_file")), tool_part(0, ArgumentChunk('{"content": "1"}')), Flush(0),
           Finished(FinishReason.TOOL_USE)]
    two = [tool_part(0, ToolCallStart("b", "write_file")), tool_part(0, ArgumentChunk('{"content": "2"}')), Flush(0),
           Finished(FinishReason.TOOL_USE)]
    h.handle_all(one)
    h.handle_all(two)
    h.handle_all(one)  # a replay of the first call id: no second invocation
    assert [(i.id, i.arguments) for i in h.invocations] == [("a", {"content": "1"}), ("b", {"content": "2"})]


def test_with_a_provider_stream(handler):
    openai_chat = pytest.importorskip("argstream.providers.openai_chat")
    args = json.dumps({"path": "café.py", "content": CONTENT}, ensure_ascii=True)
    pieces = [args[i : i + 7] for i in range(0, len(args), 7)]
    wire = [{"id": "r1", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "call_w", "type": "function", "function": {"name": "write_file", "arguments": ""}}]}}]}]
    wire += [{"id": "r1", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": p}}]}}]} for p in pieces]
    wire.append({"id": "r1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    h = handler()
    events = h.handle_all(openai_chat.to_events(wire))
    check_file_segment(events, "call_w", WRITE_FILE, content=CONTENT, path="café.py", path_in_start=True)
    assert h.invocations == [ToolInvocation("call_w", "write_file", {"path": "café.py", "content": CONTENT})]
