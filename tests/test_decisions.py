"""The decision path against hostile arguments (the decisions issue): each attack, on both backends."""

from __future__ import annotations

import json
import math
import threading
from typing import Any

import pytest

from argstream import EventBuilder
from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallStart
from argstream.policy import (
    CallStatus, PolicyError, RunMode, StreamingPolicyState, TurnCoordinator, evaluate, load_policies, run_inline,
)

TOOLS = {
    "fs_create_file": {"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]},
    "fs_read": {"type": "object", "properties": {"path": {"type": "string", "format": "path"}}},
    "set_volume": {"type": "object", "properties": {"level": {"type": "number"}}},
}
SRC_ONLY = '''
[tools.fs_create_file.policy]
run = [{ arg = "/path", prefix = "src/", mode = "unattended" }, { mode = "ask" }]
'''


def events_for(chunks: list[str], name: str = "fs_create_file", index: int = 0, end: bool = True) -> list[Any]:
    out: list[Any] = [Part(index, ToolCall(ToolCallStart(f"call_{index}", name)))]
    out += [Part(index, ToolCall(ArgumentChunk(c))) for c in chunks]
    if end:
        out += [Flush(index), Finished(FinishReason.TOOL_USE)]
    return out


class Person:
    """A user at the prompt: records what each prompt showed, answers ``answer``."""

    def __init__(self, answer: Any = True) -> None:
        self.answer = answer
        self.shown: list[dict[str, Any]] = []

    def __call__(self, call: Any) -> Any:
        self.shown.append(call.partial_arguments())
        return self.answer


@pytest.fixture
def strict(make_parser: Any) -> Any:
    """The decision path's parser (duplicate keys are errors) on the backend under test."""
    return lambda: make_parser(catch_duplicate_keys=True)


def drive(policies: Any, events: list[Any], make_parser: Any = None, **kw: Any) -> tuple[Any, list[dict]]:
    ran: list[dict] = []
    builder = EventBuilder(parser_factory=make_parser) if make_parser is not None else None
    co = TurnCoordinator(policies, execute=lambda c: ran.append(dict(c.arguments)), builder=builder, **kw)
    return run_inline(co, events), ran


# -- 1. duplicate keys ----------------------------------------------------------------------------


def test_duplicate_key_never_runs_what_the_user_did_not_see_even_when_the_parser_allows_it(make_parser) -> None:
    """With duplicate detection off, the shown value differs from the final one: asked again, on it."""
    person = Person(True)
    events = events_for(['{"path":"README.md",', '"path":"/etc/passwd"}'])
    result, ran = drive(load_policies(SRC_ONLY, tools=TOOLS), events, make_parser, prompt=person)
    assert person.shown == [{"path": "README.md"}, {"path": "/etc/passwd"}]
    assert result.calls[0].reprompt
    assert ran == [{"path": "/etc/passwd"}]  # the user approved exactly this the second time


def test_duplicate_key_that_turns_an_unattended_match_into_ask(make_parser) -> None:
    person = Person(False)
    events = events_for(['{"path":"src/a.py","content":"x",', '"path":"/etc/passwd"}'])
    result, ran = drive(load_policies(SRC_ONLY, tools=TOOLS), events, make_parser, prompt=person)
    assert ran == [] and person.shown == [{"path": "/etc/passwd", "content": "x"}]
    assert result.calls[0].status is CallStatus.SKIPPED


# -- 2. path traversal ----------------------------------------------------------------------------

ESCAPES = ["src/../.env", "src/../../etc/passwd", "src/./../x", "src/..", "src/a\x00.txt", "src\\..\\.env", "/src/a"]


@pytest.mark.parametrize("value", ESCAPES)
@pytest.mark.parametrize("tools", [None, TOOLS], ids=["no-tools", "plain-string"])
def test_path_that_escapes_the_prefix_never_runs_unattended(value: str, tools: Any, strict) -> None:
    policies = load_policies(SRC_ONLY, tools=tools)
    events = events_for([json.dumps({"path": value, "content": "x"})])
    result, ran = drive(policies, events, strict, prompt=Person(False))
    assert ran == [] and result.calls[0].mode is RunMode.ASK


@pytest.mark.parametrize("value", ESCAPES)
def test_star_fallback_uses_the_called_tools_declaration(value: str, strict) -> None:
    text = '[tools."*".policy]\nrun = [{ arg = "/path", prefix = "src/", mode = "unattended" }, { mode = "ask" }]\n'
    for tools in (None, TOOLS):
        result, ran = drive(load_policies(text, tools=tools), events_for([json.dumps({"path": value})], "fs_read"),
                            strict, prompt=Person(False))
        assert ran == [], (tools, value)


def test_paths_inside_the_prefix_still_run_unattended(strict) -> None:
    for value in ["src/a.py", "src//b/./c.py", "src/x/../y.py"]:
        _, ran = drive(load_policies(SRC_ONLY, tools=TOOLS), events_for([json.dumps({"path": value, "content": ""})]),
                       strict)
        assert ran == [{"path": value, "content": ""}]


# -- 3. ReDoS ---------------------------------------------------------------------------------------


def test_catastrophic_pattern_decides_at_once(strict) -> None:
    text = '[tools.fs_create_file.policy]\nrun = [{ arg = "/path", pattern = "(a+)+$", mode = "skip" }, { mode = "unattended" }]\n'
    policies = load_policies(text, tools=TOOLS)
    for value in ["a" * 30 + "!", "a" * 1_000_000 + "!"]:
        _, ran = drive(policies, events_for([json.dumps({"path": value, "content": ""})]), strict)
        assert len(ran) == 1


def test_backtracking_syntax_is_a_load_time_error() -> None:
    text = '[tools.fs_create_file.policy]\nrun = [{ arg = "/path", pattern = "(?<=a)b", mode = "skip" }, { mode = "ask" }]\n'
    with pytest.raises(PolicyError, match="backtracking"):
        load_policies(text, tools=TOOLS)


# -- 4. typos ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    '[tools.fs_create_file.policy]\nrun = [{ arg = "/pth", prefix = "src/", mode = "skip" }, { mode = "unattended" }]\n',
    '[tools.fs_create_fiel.policy]\nrun = "skip"\n',
    '[tools."*".policy]\nrun = [{ arg = "/pth", prefix = "src/", mode = "skip" }, { mode = "unattended" }]\n',
    '[tools.set_volume.policy]\nrun = [{ arg = "/level", prefix = "1", mode = "skip" }, { mode = "unattended" }]\n',
])
def test_typos_fail_to_load_instead_of_approving(text: str) -> None:
    with pytest.raises(PolicyError) as info:
        load_policies(text, tools=TOOLS)
    assert all(p.tool and p.reason for p in info.value.problems)


# -- 5. informed prompts ------------------------------------------------------------------------------


def test_catch_all_ask_prompts_with_complete_arguments(strict) -> None:
    person = Person(True)
    args = {"path": "src/a.py", "content": "print(1)\n" * 20}
    text = json.dumps(args)
    chunks = [text[i:i + 8] for i in range(0, len(text), 8)]
    result, ran = drive({"*": "ask"}, events_for(chunks), strict, prompt=person)
    assert person.shown == [args] and ran == [args]
    assert result.calls[0].decided_at == 0  # the mode is known at once; the prompt waits for the arguments


def test_conditional_ask_prompts_when_its_parameter_completes_and_shows_what_streams(strict) -> None:
    seen: list[tuple] = []

    def prompt(call: Any) -> bool:
        seen.append((call.chunks, call.partial_arguments(), call.streaming_parameter))
        return True

    text = json.dumps({"path": "docs/a.md", "content": "x" * 200})
    chunks = [text[i:i + 8] for i in range(0, len(text), 8)]
    drive(load_policies(SRC_ONLY, tools=TOOLS), events_for(chunks), strict, prompt=prompt)
    at, shown, streaming = seen[0]
    assert shown == {"path": "docs/a.md"} and at < len(chunks) // 4
    assert streaming in (None, "content")
    if streaming is None:  # "content" was neither shown nor announced: asked again, whole, before it runs
        assert len(seen) == 2 and seen[1][1] == json.loads(text)
    else:
        assert len(seen) == 1


def test_threaded_driver_keeps_reading_while_a_prompt_waits() -> None:
    text = json.dumps({"path": "docs/a.md", "content": "x" * 400})
    chunks = [text[i:i + 8] for i in range(0, len(text), 8)]
    answered = threading.Event()
    read_while_waiting: list[int] = []
    co: TurnCoordinator

    def prompt(call: Any) -> bool:
        answered.wait(10)
        return True

    def render(item: Any) -> None:
        call = co.calls.get(0)
        if call is not None and call.status is CallStatus.PROMPTING:
            read_while_waiting.append(call.chunks)
            if call.chunks >= call.decided_at + 20:
                answered.set()

    ran: list[dict] = []
    co = TurnCoordinator(load_policies(SRC_ONLY, tools=TOOLS), prompt=prompt, render=render,
                         execute=lambda c: ran.append(c.arguments))
    result = co.run(events_for(chunks))
    assert answered.is_set() and len(read_while_waiting) >= 20
    assert ran == [json.loads(text)] and result.calls[0].approved


def test_no_declines_and_cancels_at_once() -> None:
    text = json.dumps({"path": "docs/a.md", "content": "x" * 400})
    chunks = [text[i:i + 8] for i in range(0, len(text), 8)]
    closed: list[bool] = []
    co = TurnCoordinator(load_policies(SRC_ONLY, tools=TOOLS), prompt=Person(False))
    result = run_inline(co, events_for(chunks), close=lambda: closed.append(True))
    assert result.cancelled and closed == [True] and result.calls[0].dropped


# -- 6. numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["-1e400", "1e400", "-1E+999"])
def test_overflowing_number_never_satisfies_a_bound(literal: str, make_parser) -> None:
    text = ('[tools.set_volume.policy]\nrun = [{ arg = "/level", maximum = 100, mode = "unattended" },'
            ' { arg = "/level", minimum = 0, mode = "unattended" }, { mode = "ask" }]\n')
    policies = load_policies(text, tools=TOOLS)
    assert math.isinf(json.loads(literal))
    assert evaluate(policies["set_volume"].run, {"level": json.loads(literal)}, complete=True) is RunMode.ASK
    result, ran = drive(policies, events_for(['{"level": ', literal, "}"], "set_volume"), make_parser,
                        prompt=Person(False))
    assert ran == [] and result.calls[0].mode is RunMode.ASK


def test_streaming_state_revises_on_a_replaced_value() -> None:
    policies = load_policies(SRC_ONLY, tools=TOOLS)
    state = StreamingPolicyState(policies["fs_create_file"].run)
    assert state.feed_parameter("path", "src/a") is RunMode.UNATTENDED
    assert state.feed_parameter("path", "src/../../x") is RunMode.ASK


# -- invalid and cut-off calls: one error, from every layer -------------------------------------------


def test_cut_off_call_has_the_same_error_from_every_layer(strict) -> None:
    from argstream import IncompleteJSONError, iter_tool_stream
    from argstream.stream import StreamFinished, ToolCallFailed

    events = events_for(['{"path": "src/a.py", "content": "unfinished'], end=False) + [
        Finished(FinishReason.MAX_TOKENS)]
    items = list(iter_tool_stream(iter(events), provider=lambda stream: stream))
    failed = [i for i in items if type(i) is ToolCallFailed]
    end = items[-1]
    assert type(end) is StreamFinished and len(failed) == 1
    result, ran = drive({"*": "unattended"}, events, strict)
    call = result.calls[0]
    for error in (failed[0].error, end.incomplete[0].kind.error, call.error):
        assert type(error) is IncompleteJSONError
    assert ran == [] and call.failed and not result.cancelled


def test_invalid_arguments_mid_stream_fail_like_a_decline_and_cancel(make_parser) -> None:
    closed: list[bool] = []
    chunks = ['{"path": "src/a.py", ', '"content": x', '"rest"}', '...'] + ["more"] * 10
    co = TurnCoordinator({"*": "unattended"}, builder=EventBuilder(parser_factory=make_parser))
    result = run_inline(co, events_for(chunks), close=lambda: closed.append(True))
    call = result.calls[0]
    assert call.failed and call.response.startswith("invalid arguments") and not call.executed
    assert result.cancelled and closed == [True] and call.chunks == 2


# -- duplicate keys are an error on the decision path by default ------------------------------------


def test_duplicate_key_is_an_error_by_default_and_the_call_is_declined(backend: str, make_parser) -> None:
    from argstream import DuplicateKeyError
    from argstream.stream import ToolCallFailed

    strict = EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True))
    person = Person(True)
    rendered: list[Any] = []
    closed: list[bool] = []
    events = events_for(['{"path":"README.md",', '"path":"/etc/passwd"}', ', "content": "x"}'])
    co = TurnCoordinator(load_policies(SRC_ONLY, tools=TOOLS), prompt=person, builder=strict, render=rendered.append)
    result = run_inline(co, events, close=lambda: closed.append(True))
    call = result.calls[0]
    assert call.failed and not call.executed and isinstance(call.error, DuplicateKeyError)
    assert call.error.key == "path" and call.error.pos == len('{"path":"README.md","path"') - 1
    assert person.shown == [{"path": "README.md"}]  # asked on the first value, never run on the second
    assert result.cancelled and closed == [True]  # D26: the declined call was the only one streaming
    assert [type(i) for i in rendered].count(ToolCallFailed) == 1


def test_event_builder_rejects_duplicate_keys_by_default() -> None:
    from argstream import DuplicateKeyError

    builder = EventBuilder()
    builder.handle_part(0, ToolCall(ToolCallStart("c", "t")))
    builder.handle_part(0, ToolCall(ArgumentChunk('{"a": 1, "a": 2}')))
    request = builder.handle_flush(0).kind
    assert isinstance(request.error, DuplicateKeyError) and request.arguments == {}


def test_tool_arguments_nest_at_most_tool_max_depth() -> None:
    """Work per fragment grows with depth: the decision path bounds it (a 500-deep event is refused at once)."""
    from argstream import ArgumentStreamError
    from argstream.builder import TOOL_MAX_DEPTH

    builder = EventBuilder()
    builder.handle_part(0, ToolCall(ToolCallStart("c", "t")))
    ok = '{"a":' * (TOOL_MAX_DEPTH - 1) + "1" + "}" * (TOOL_MAX_DEPTH - 1)
    builder.handle_part(0, ToolCall(ArgumentChunk(ok)))
    assert builder.error(0) is None
    builder.handle_part(1, ToolCall(ToolCallStart("d", "t")))
    assert builder.handle_part(1, ToolCall(ArgumentChunk('{"a":' * 500 + "1" + "}" * 500))) == []
    assert isinstance(builder.error(1), ArgumentStreamError) and "depth" in str(builder.error(1))
