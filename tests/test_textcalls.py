"""Tool calls written as text: each format's documented shapes, every two-way split, the event transformer.

The streams follow each model's chat template or reference parser: Hermes / Qwen 2.5 / Qwen 3
(``<tool_call>`` JSON), Qwen3-Coder (``<function=...><parameter=...>``), Mistral (v3 list and
v11 ``[ARGS]``, v13 ``[CALL_ID]``), Llama 3.1-3.3 JSON (with and without ``<|python_tag|>``, ``;``
between calls), DeepSeek V3 (fenced) and V3.1, Kimi K2, GLM-4.5, and gpt-oss harmony (from its
published specification).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream import EventBuilder
from argstream.events import (
    ArgumentChunk,
    ChatMessage,
    ChatReasoning,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    ToolCall,
    ToolCallRequest,
    ToolCallStart,
)
from argstream.textcalls import (
    METADATA_KEY,
    CallArguments,
    CallBegin,
    CallEnd,
    ReasoningPiece,
    TextPiece,
    TextToolCallEvents,
    TextToolCallScanner,
    text_tool_call_events,
)

W = {"city": "Paris", "unit": "celsius"}
W_JSON = json.dumps(W)
DS = "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"

#: (format, text, the reader's text, [(name, arguments)], reasoning)
CASES: list[tuple[str, str, str, list[tuple[str, Any]], str]] = [
    ("hermes", f'Let me check.\n<tool_call>\n{{"name": "get_weather", "arguments": {W_JSON}}}\n</tool_call>',
     "Let me check.\n", [("get_weather", W)], ""),
    ("hermes", '<tool_call>\n{"name": "a", "arguments": {"q": "</tool_call> <tool_call>"}}\n</tool_call>\n'
     '<tool_call>\n{"arguments": {"n": [1, {"x": "}"}]}, "name": "b"}\n</tool_call>\n',
     "", [("a", {"q": "</tool_call> <tool_call>"}), ("b", {"n": [1, {"x": "}"}]})], ""),
    ("hermes", '<tool_call>\n{"name": "no_args"}\n</tool_call>', "", [("no_args", {})], ""),
    ("hermes", 'An example:\n```\n<tool_call>{"name": "x", "arguments": {}}</tool_call>\n```\nDone.',
     'An example:\n```\n<tool_call>{"name": "x", "arguments": {}}</tool_call>\n```\nDone.', [], ""),
    ("hermes", "<tool_call>not a call</tool_call> and text", "<tool_call>not a call</tool_call> and text", [], ""),
    ("hermes", "naïve ünïcode 🙂 <tool_call>\n{\"name\": \"é\", \"arguments\": {\"t\": \"🙂\\u00e9\"}}\n</tool_call>",
     "naïve ünïcode 🙂 ", [("é", {"t": "🙂é"})], ""),
    ("qwen3_coder", "Sure.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
     "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>", "Sure.\n", [("get_weather", W)], ""),
    ("qwen3_coder", "<tool_call>\n<function=write>\n<parameter=content>\nline 1\n\"quoted\" </tool_call>\n\n"
     "</parameter>\n</function>\n</tool_call>",
     "", [("write", {"content": 'line 1\n"quoted" </tool_call>\n'})], ""),
    ("qwen3_coder", "<tool_call>\n<function=ping>\n</function>\n</tool_call>", "", [("ping", {})], ""),
    ("mistral", f'[TOOL_CALLS][{{"name": "get_weather", "arguments": {W_JSON}}}, {{"name": "b", "arguments": {{}}}}]',
     "", [("get_weather", W), ("b", {})], ""),
    ("mistral", f"[TOOL_CALLS]get_weather[ARGS]{W_JSON}[TOOL_CALLS]b[ARGS]{{}}", "", [("get_weather", W), ("b", {})], ""),
    ("mistral", f"[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{W_JSON}", "", [("get_weather", W)], ""),
    ("llama3_json", f'{{"name": "get_weather", "parameters": {W_JSON}}}', "", [("get_weather", W)], ""),
    ("llama3_json", f'<|python_tag|>{{"name": "get_weather", "parameters": {W_JSON}}}; '
     '{"name": "b", "parameters": {}}', "", [("get_weather", W), ("b", {})], ""),
    ("llama3_json", '{"answer": 42} is plain JSON', '{"answer": 42} is plain JSON', [], ""),
    ("deepseek_v3", f"Checking.{DS[0]}{DS[1]}function{DS[2]}get_weather\n```json\n{W_JSON}\n```{DS[3]}{DS[4]}",
     "Checking.", [("get_weather", W)], ""),
    ("deepseek_v3", f"{DS[0]}{DS[1]}get_weather{DS[2]}{W_JSON}{DS[3]}{DS[1]}b{DS[2]}{{}}{DS[3]}{DS[4]}",
     "", [("get_weather", W), ("b", {})], ""),
    ("kimi_k2", f"ok<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
     f"<|tool_call_argument_begin|>{W_JSON}<|tool_call_end|><|tool_call_begin|>functions.b:1"
     "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
     "ok", [("get_weather", W), ("b", {})], ""),
    ("glm45", "Let me look.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
     "<arg_key>unit</arg_key>\n<arg_value>celsius</arg_value>\n</tool_call>", "Let me look.", [("get_weather", W)], ""),
    ("harmony", "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary "
     f"to=functions.get_weather <|constrain|>json<|message|>{W_JSON}<|call|>", "", [("get_weather", W)],
     "Need the weather."),
    ("harmony", "<|channel|>analysis<|message|>Say hi.<|end|><|start|>assistant<|channel|>final<|message|>Hi!"
     "<|return|>", "Hi!", [], "Say hi."),
    ("harmony", f"<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{W_JSON}<|call|>",
     "", [("get_weather", W)], ""),
]
IDS = [f"{c[0]}-{k}" for k, c in enumerate(CASES)]


def scan(fmt: str, chunks: list[str], tools: Any = None) -> list[Any]:
    scanner = TextToolCallScanner(fmt, tools, id_prefix="t")
    out: list[Any] = []
    for chunk in chunks:
        out += scanner.feed(chunk)
    return out + scanner.finish()


def summary(items: list[Any]) -> tuple[str, list[tuple[str, Any]], str, list[Any]]:
    """(text, [(name, arguments)], reasoning, errors) from scanner items."""
    text, reasoning, calls, args, errors = [], [], [], {}, []
    for item in items:
        if type(item) is TextPiece:
            text.append(item.text)
        elif type(item) is ReasoningPiece:
            reasoning.append(item.text)
        elif type(item) is CallBegin:
            calls.append((item.call, item.name))
            args[item.call] = []
        elif type(item) is CallArguments:
            args[item.call].append(item.text)
        elif type(item) is CallEnd:
            errors.append(item.error)
    return ("".join(text), [(name, json.loads("".join(args[k]))) for k, name in calls], "".join(reasoning),
            [e for e in errors if e])


@pytest.mark.parametrize(("fmt", "text", "reader", "calls", "reasoning"), CASES, ids=IDS)
def test_every_split(fmt: str, text: str, reader: str, calls: list, reasoning: str) -> None:
    expected = (reader, calls, reasoning, [])
    assert summary(scan(fmt, [text])) == expected
    assert summary(scan(fmt, list(text))) == expected
    for k in range(1, len(text)):
        assert summary(scan(fmt, [text[:k], text[k:]])) == expected, k


@pytest.mark.parametrize(("fmt", "text", "reader", "calls", "reasoning"), CASES, ids=IDS)
def test_auto_finds_the_format(fmt: str, text: str, reader: str, calls: list, reasoning: str) -> None:
    if fmt == "llama3_json" and not text.startswith("<|python_tag|>") and calls:
        pytest.skip("a bare JSON message is a call only for llama3_json or when it names a call")
    scanner = TextToolCallScanner("auto")
    items = scanner.feed(text) + scanner.finish()
    assert summary(items) == (reader, calls, reasoning, [])
    if calls:
        assert scanner.format == fmt


def test_auto_keeps_the_first_format() -> None:
    scanner = TextToolCallScanner("auto")
    text = "[TOOL_CALLS]a[ARGS]{} then <tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>"
    got = summary(scanner.feed(text) + scanner.finish())
    assert got[1] == [("a", {})]
    assert "<tool_call>" in got[0]


def test_only_the_configured_format_is_recognised() -> None:
    text = "[TOOL_CALLS]a[ARGS]{}<|tool_calls_section_begin|>"
    assert summary(scan("hermes", [text])) == (text, [], "", [])


def test_arguments_streamed_as_they_arrive() -> None:
    scanner = TextToolCallScanner("hermes")
    scanner.feed('<tool_call>{"name": "w", "arguments": {"content": "')
    assert [type(i) for i in scanner.feed("abc")] == [CallArguments]


def test_qwen3_coder_types_parameters_by_schema() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "n": {"type": "integer"}, "ok": {"type": "boolean"}, "xs": {"type": "array"}, "s": {"type": "string"},
        "bad": {"type": "integer"}}}}}]
    text = ("<tool_call>\n<function=f>\n<parameter=n>\n42\n</parameter>\n<parameter=ok>\nTrue\n</parameter>\n"
            "<parameter=xs>\n[1, 2]\n</parameter>\n<parameter=s>\n7\n</parameter>\n<parameter=bad>\nmany\n"
            "</parameter>\n<parameter=other>\n1\n</parameter>\n</function>\n</tool_call>")
    got = summary(scan("qwen3_coder", [text], tools))
    assert got[1] == [("f", {"n": 42, "ok": True, "xs": [1, 2], "s": "7", "bad": "many", "other": "1"})]


def test_glm45_types_by_schema() -> None:
    tools = {"f": {"type": "object", "properties": {"n": {"type": "number"}}}}
    text = "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>2.5</arg_value>\n</tool_call>"
    assert summary(scan("glm45", [text], tools))[1] == [("f", {"n": 2.5})]


def test_unknown_name_is_reported_not_known() -> None:
    items = scan("hermes", ['<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'], {"get_weather": {}})
    begin = next(i for i in items if type(i) is CallBegin)
    assert begin.name == "rm_rf" and begin.known is False


def test_cut_off_call_ends_with_an_error() -> None:
    items = scan("hermes", ['<tool_call>{"name": "w", "arguments": {"a": "b'])
    assert type(items[-1]) is CallEnd and items[-1].error


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown text tool call format"):
        TextToolCallScanner("xml")


# -- hostile text -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["auto", "hermes", "qwen3_coder", "glm45", "mistral", "llama3_json", "deepseek_v3",
                                 "kimi_k2", "harmony"])
@pytest.mark.parametrize("text", [
    "<tool_call>" * 50, "<tool_call>{" * 30, "<tool_call>{\"name\": " + '"x' * 400, "[TOOL_CALLS]" + "a" * 5000,
    "<|channel|>" + "x" * 5000, "<tool_call><function=" + "f" * 5000, "```" * 7 + "<tool_call>", "{" * 2000,
    '<tool_call>{"name": "a", "arguments": ' + "[" * 600 + "]" * 600 + "}</tool_call>",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>" + "x" * 400, "<|tool_calls_section_begin|>junk", "\x00<\x00tool_call>",
])
def test_hostile_text_never_crashes_and_keeps_its_text(fmt: str, text: str) -> None:
    for chunks in ([text], [text[i : i + 3] for i in range(0, len(text), 3)]):
        items = scan(fmt, chunks)
        shown = "".join(i.text for i in items if type(i) in (TextPiece, ReasoningPiece))
        assert len(shown) <= len(text)
        assert all(type(i) in (TextPiece, ReasoningPiece, CallBegin, CallArguments, CallEnd) for i in items)


def test_held_back_text_is_bounded() -> None:
    scanner = TextToolCallScanner("hermes")
    scanner.feed("<tool_call>{")
    for _ in range(200):
        scanner.feed('"k": "' + "v" * 500 + '", ')
    assert len(scanner._tail) < 64  # only a partial marker or token is ever held


# -- the event transformer --------------------------------------------------------------------


def message_events(text: str, chunks: int = 5, index: int = 0) -> list[Any]:
    parts = [Part(index, Message(text[k : k + chunks])) for k in range(0, len(text), chunks)]
    return [*parts, Flush(index), Finished(FinishReason.COMPLETED)]


def build(events: Any) -> list[Any]:
    builder = EventBuilder()
    out = []
    for event in events:
        if type(event) is Finished:
            out += builder.handle_finished(event)
            continue
        if type(event) is Flush:
            persisted = builder.handle_flush(event.index, event.metadata)
            if persisted is not None:
                out.append(persisted)
        else:
            builder.handle(event)
    return out


@pytest.mark.parametrize(("fmt", "text", "reader", "calls", "reasoning"), CASES, ids=IDS)
def test_events_become_tool_calls(fmt: str, text: str, reader: str, calls: list, reasoning: str) -> None:
    events = list(text_tool_call_events(message_events(text), fmt))
    persisted = build(events)
    requests = [e.kind for e in persisted if type(e.kind) is ToolCallRequest]
    assert [(r.name, r.arguments) for r in requests] == calls
    assert all(r.error is None for r in requests)
    messages = [e.kind.text for e in persisted if type(e.kind) is ChatMessage]
    assert "".join(messages) == reader
    assert "".join(e.kind.text for e in persisted if type(e.kind) is ChatReasoning) == reasoning
    assert len({r.id for r in requests}) == len(requests)
    call_indexes = {e.index for e in events if type(e) is Part and type(e.part) is ToolCall}
    assert all(i < 0 for i in call_indexes)
    assert events[-1].reason is (FinishReason.TOOL_USE if calls else FinishReason.COMPLETED)


def test_events_pass_through_and_keep_native_calls() -> None:
    native = [Part(0, Message("hi ")), Part(1, ToolCall(ToolCallStart("c1", "f"))), Part(1, ToolCall(ArgumentChunk("{}"))),
              Flush(1), Part(0, Message('<tool_call>{"name": "g", "arguments": {}}</tool_call>')), Flush(0),
              Finished(FinishReason.TOOL_USE)]
    events = list(text_tool_call_events(native, "hermes", id_prefix="x"))
    assert events[:4] == native[:4]
    got = build(events)
    assert [(e.kind.id, e.kind.name) for e in got if type(e.kind) is ToolCallRequest] == [("c1", "f"), ("x0_0", "g")]


def test_unknown_tool_is_marked_in_metadata() -> None:
    events = list(text_tool_call_events(message_events('<tool_call>{"name": "evil", "arguments": {}}</tool_call>'),
                                        "hermes", tools={"good": {"type": "object"}}))
    (request,) = [e for e in build(events) if type(e.kind) is ToolCallRequest]
    assert request.metadata[METADATA_KEY] == {"format": "hermes", "known": False}
    assert events[-1].reason is FinishReason.COMPLETED  # no known tool was called


def test_the_builder_reads_the_metadata_key_textcalls_writes() -> None:
    """The builder names the key itself, so that reading a call's metadata does not import textcalls."""
    from argstream import builder

    assert builder._TEXT_CALL_KEY == METADATA_KEY


def test_stream_without_flush_is_finished() -> None:
    events = [Part(0, Message('<tool_call>{"name": "g", "arguments": {"a": 1}}</tool_call>tail')),
              Finished(FinishReason.COMPLETED)]
    out = list(text_tool_call_events(events, "hermes"))
    assert [type(e) for e in out] == [Part, Part, Flush, Part, Finished]


def test_state_object_validates_format() -> None:
    with pytest.raises(ValueError):
        TextToolCallEvents("nope")


async def test_async_twin() -> None:
    from argstream.textcalls import atext_tool_call_events

    async def source():
        for event in message_events(CASES[0][1]):
            yield event

    got = [e async for e in atext_tool_call_events(source(), "hermes", id_prefix="p")]
    assert got == list(text_tool_call_events(message_events(CASES[0][1]), "hermes", id_prefix="p"))


@pytest.mark.parametrize("value", ['"a\\\\\\\\"', '"\\\\\\"}"', '"x\\\\" ', '"}\\"{"'])
def test_escapes_split_anywhere_in_arguments(value: str) -> None:
    text = f'<tool_call>{{"name": "f", "arguments": {{"v": {value}, "w": [1]}}}}</tool_call>'
    expected = ("", [("f", {"v": json.loads(value), "w": [1]})], "", [])
    for k in range(1, len(text)):
        for j in range(k + 1, len(text)):
            assert summary(scan("hermes", [text[:k], text[k:j], text[j:]])) == expected, (k, j)


def test_mistral_common_reference_encoding() -> None:
    """The reference encoder's own rendering of a call (mistral-common, offline tokenizers it ships)."""
    mistral_common = pytest.importorskip("mistral_common")
    import os

    from mistral_common.protocol.instruct.messages import AssistantMessage, ToolMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.protocol.instruct.tool_calls import FunctionCall
    from mistral_common.protocol.instruct.tool_calls import ToolCall as MistralToolCall
    from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    data = os.path.join(os.path.dirname(mistral_common.__file__), "data")
    args = {"city": "Paris", "note": 'é "q" ]}[TOOL_CALLS]'}
    call = MistralToolCall(id="abc123XYZ", function=FunctionCall(name="get_weather", arguments=json.dumps(args)))
    messages = [UserMessage(content="weather?"), AssistantMessage(content=None, tool_calls=[call]),
                ToolMessage(tool_call_id="abc123XYZ", content="sunny"), UserMessage(content="thanks")]
    tested = 0
    for name in sorted(os.listdir(data)):
        if not name.startswith("tekken"):
            continue  # the SentencePiece ones need sentencepiece; tekken renders the same text
        tokenizer = MistralTokenizer.from_file(os.path.join(data, name))
        tokens = tokenizer.encode_chat_completion(ChatCompletionRequest(messages=messages)).tokens
        text = tokenizer.decode(tokens, special_token_policy=SpecialTokenPolicy.KEEP)
        start = text.index("[TOOL_CALLS]")
        rendered = text[start : text.index("</s>", start)]
        expected = ("", [("get_weather", args)], "", [])
        assert summary(scan("mistral", [rendered])) == expected
        for k in range(1, len(rendered)):
            assert summary(scan("mistral", [rendered[:k], rendered[k:]])) == expected, k
        tested += 1
    assert tested


def test_duplicate_parameters_fail_as_native_duplicates_do() -> None:
    from argstream import DuplicateKeyError

    text = ("<tool_call>\n<function=f>\n<parameter=path>\na\n</parameter>\n<parameter=path>\n/etc/passwd\n"
            "</parameter>\n</function>\n</tool_call>")
    (request,) = [e.kind for e in build(text_tool_call_events(message_events(text), "qwen3_coder"))
                  if type(e.kind) is ToolCallRequest]
    assert isinstance(request.error, DuplicateKeyError)


def test_double_encoded_arguments_with_a_lenient_parser() -> None:
    from argstream import IncrementalArgParser

    text = '<tool_call>{"name": "f", "arguments": "{\\"a\\": [1, 2,]}"}</tool_call>'
    events = list(text_tool_call_events(message_events(text), "hermes"))
    strict = [e.kind for e in build(events) if type(e.kind) is ToolCallRequest]
    assert strict[0].error is not None  # a string is not arguments

    builder = EventBuilder(parser_factory=lambda: IncrementalArgParser(lenient=True, catch_duplicate_keys=True))
    for event in events:
        if type(event) is Flush:
            done = builder.handle_flush(event.index, event.metadata)
            if done is not None and type(done.kind) is ToolCallRequest:
                assert (done.kind.arguments, done.kind.error) == ({"a": [1, 2]}, None)
        elif type(event) is Part:
            builder.handle(event)


def test_whitespace_after_a_call_is_held_only_while_short() -> None:
    scanner = TextToolCallScanner("hermes")
    scanner.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>')
    shown = []
    for _ in range(5000):
        shown += scanner.feed(" ")
        assert len(scanner._held_ws) <= 300
    shown += scanner.finish()
    assert "".join(i.text for i in shown if type(i) is TextPiece).strip() == ""


@pytest.mark.parametrize(("fmt", "call"), [
    ("deepseek_v3", "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
    ("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}"
                "<|tool_call_end|>"),
])
@pytest.mark.parametrize("after", ["\n<>", " \n <｜x", "\n\n<|tool_cal>", "  <", "\t" * 256 + "<>"])
def test_whitespace_before_what_only_looks_like_a_marker_survives_any_split(fmt: str, call: str,
                                                                           after: str) -> None:
    """After a call, whitespace then the start of a marker: when it turns out not to be one, the text the
    reader sees is the same wherever the chunks were cut (the fuzz target found a cut that dropped
    the whitespace: it was let go while the marker was still undecided)."""
    for mode in ("auto", fmt):
        text = call + after
        whole = summary(scan(mode, [text]))
        for k in range(1, len(text)):
            assert summary(scan(mode, [text[:k], text[k:]])) == whole, (mode, k)
