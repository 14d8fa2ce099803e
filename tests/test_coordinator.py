"""``TurnCoordinator`` over provider events (no network): early decisions, prompts, drops and cancellation."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from argstream import EventBuilder, IncrementalArgParser, ObjectEntry, String
from argstream.events import (
    ArgumentChunk,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    ToolCall,
    ToolCallArgumentProgress,
    ToolCallStart,
)
from argstream.policy import (
    CallStatus,
    ParamCondition,
    ResultMode,
    RunMode,
    RunPolicy,
    RunRule,
    ToolCallState,
    TurnCoordinator,
    load_policies,
    make_matcher,
)
from argstream.policy.drivers import run_inline
from argstream.providers import anthropic, openai_chat

try:
    from recordings.generate import RECORDINGS
except ImportError:  # pragma: no cover - the shared recordings module is missing
    RECORDINGS = {}

TOOLS = {
    "fs_create_file": {
        "type": "object",
        "properties": {"path": {"type": "string", "format": "path"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
    "fs_modify_file": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "format": "path"},
            "patterns": {"type": "array", "items": {"type": "object", "properties": {
                "old": {"type": "string"}, "new": {"type": "string"},
                "paths": {"type": "array", "items": {"type": "string", "format": "path"}}}}},
        },
    },
}


def policies(create_mode_for_src: str = "ask", other: str = "skip") -> dict:
    text = f'''
[tools.fs_create_file.policy]
run = [
  {{ arg = "/path", prefix = "src/", mode = "{create_mode_for_src}" }},
  {{ mode = "{other}" }},
]
[tools.fs_modify_file.policy]
run = [{{ arg = "/patterns/paths", prefix = "docs/", mode = "unattended" }}, {{ mode = "ask" }}]
'''
    return load_policies(text, tools=TOOLS)


def call_events(index: int, call_id: str, name: str, pieces: list[str]) -> list[Any]:
    out: list[Any] = [Part(index, ToolCall(ToolCallStart(call_id, name)))]
    out += [Part(index, ToolCall(ArgumentChunk(p))) for p in pieces]
    return out


def pieces_of(args: dict, size: int = 7) -> list[str]:
    text = json.dumps(args)
    return [text[i:i + size] for i in range(0, len(text), size)]


class Counted:
    """An event iterator that counts what was taken from it, and whether it was closed."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.taken = 0
        self.closed = False
        self._it = iter(events)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        event = next(self._it)
        self.taken += 1
        return event

    def close(self) -> None:
        self.closed = True


def single_create(path: str = "src/main.rs", content: str = "fn main() {}\n" * 40) -> tuple[list[Any], dict]:
    args = {"path": path, "content": content}
    events = [Part(0, Message("Creating it."))]
    events += [Flush(0)]
    events += call_events(1, "call_1", "fs_create_file", pieces_of(args))
    events += [Flush(1), Finished(FinishReason.TOOL_USE)]
    return events, args


def path_chunk(args: dict, size: int = 7) -> int:
    """The 1-based argument chunk that closes the ``path`` string."""
    text = json.dumps(args)
    end = text.index('"', text.index('"path": "') + len('"path": "')) + 1
    return (end - 1) // size + 1


@pytest.fixture(autouse=True)
def _inline_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests pin the exact chunk at which answers apply: drive inline (run() is threaded,
    tested on its own in test_drivers.py)."""
    monkeypatch.setattr(TurnCoordinator, "run", lambda self, events, close=None: run_inline(self, events, close))


# -- decisions ------------------------------------------------------------------------------------


def test_ask_prompts_early_with_partial_arguments_then_runs_with_complete_ones() -> None:
    events, args = single_create()
    seen: list[tuple] = []
    ran: list[dict] = []

    def prompt(call: ToolCallState) -> bool:
        seen.append((call.decided_at, call.partial_arguments(), call.complete))
        return True

    co = TurnCoordinator(policies(), prompt=prompt, execute=lambda c: ran.append(c.arguments) or "ok",
                         early_answer="call")
    result = co.run(events)
    assert seen == [(path_chunk(args), {"path": "src/main.rs"}, False)]
    call = result.calls[0]
    assert call.status is CallStatus.APPROVED and call.mode is RunMode.ASK
    assert ran == [args] and call.result == "ok"
    assert call.chunks == len(pieces_of(args))
    assert not result.cancelled and result.finish_reason is FinishReason.TOOL_USE
    assert call.result_mode is ResultMode.UNATTENDED


def test_an_early_yes_covers_only_what_the_prompt_showed() -> None:
    """The default: "content" arrived after the early prompt, which never showed it, so the call is
    shown again, whole, and runs only after a second yes."""
    events, args = single_create()
    seen: list[tuple] = []
    ran: list[dict] = []

    def prompt(call: ToolCallState) -> bool:
        seen.append((call.partial_arguments(), call.complete, call.early_prompt, call.reprompt))
        return True

    result = TurnCoordinator(policies(), prompt=prompt, execute=lambda c: ran.append(c.arguments)).run(events)
    assert seen == [({"path": "src/main.rs"}, False, True, False), (args, True, False, True)]
    assert ran == [args] and result.calls[0].approved


def test_a_no_to_the_second_prompt_runs_nothing() -> None:
    events, args = single_create()
    answers = iter([True, False])
    ran: list[dict] = []
    result = TurnCoordinator(policies(), prompt=lambda c: next(answers), execute=lambda c: ran.append(c.arguments)
                             ).run(events)
    call = result.calls[0]
    assert ran == [] and call.skipped and call.response == "skipped by user" and call.prompts == 2


def test_unattended_is_pre_approved_and_runs_when_complete() -> None:
    events, args = single_create()
    decided: list[tuple] = []
    ran: list[tuple] = []
    co = TurnCoordinator(
        policies("unattended"),
        on_decision=lambda c: decided.append((c.mode, c.decided_at, c.complete)),
        execute=lambda c: ran.append((c.chunks, c.arguments)),
    )
    result = co.run(events)
    assert decided == [(RunMode.UNATTENDED, path_chunk(args), False)]
    assert ran == [(len(pieces_of(args)), args)]  # only with the complete arguments
    assert result.calls[0].approved


def test_declining_the_only_call_cancels_the_stream() -> None:
    events, args = single_create()
    source = Counted(events)
    closed: list[bool] = []
    co = TurnCoordinator(policies(), prompt=lambda c: False, execute=lambda c: pytest.fail("declined call ran"))
    result = co.run(source, close=lambda: closed.append(True))
    call = result.calls[0]
    assert call.status is CallStatus.SKIPPED and call.response == "skipped by user"
    assert call.arguments is None and not call.executed
    assert result.cancelled and closed == [True] and source.closed
    assert result.finish_reason is FinishReason.CANCELLED
    # The stream was left right after the chunk that decided (3 events come before the call's chunks).
    assert source.taken == 3 + path_chunk(args)
    assert source.taken < len(events)


def test_skip_answers_skipped_at_once_and_cancels() -> None:
    events, _ = single_create(path="/etc/passwd")
    source = Counted(events)
    closed: list[bool] = []
    result = TurnCoordinator(policies(), prompt=lambda c: pytest.fail("skip prompted")).run(
        source, close=lambda: closed.append(True))
    call = result.calls[0]
    assert call.status is CallStatus.SKIPPED and call.response == "skipped" and call.mode is RunMode.SKIP
    assert result.cancelled and closed == [True]


def test_no_prompt_callback_declines() -> None:
    events, _ = single_create()
    result = TurnCoordinator(policies()).run(events)
    assert result.calls[0].response == "skipped by user"


def test_edit_is_decided_early_but_edits_complete_arguments() -> None:
    events, args = single_create()
    decided: list[tuple] = []
    edits: list[dict] = []
    ran: list[dict] = []

    def edit(call: ToolCallState) -> dict:
        edits.append(dict(call.arguments))
        return {**call.arguments, "path": "/etc/shadow"}  # not evaluated again

    co = TurnCoordinator(policies("edit"), edit=edit, on_decision=lambda c: decided.append((c.mode, c.decided_at)),
                         execute=lambda c: ran.append(c.arguments))
    result = co.run(events)
    assert decided == [(RunMode.EDIT, path_chunk(args))]
    assert edits == [args]
    assert ran == [{**args, "path": "/etc/shadow"}]
    assert result.calls[0].approved


def test_edit_returning_none_declines() -> None:
    events, _ = single_create()
    result = TurnCoordinator(policies("edit"), edit=lambda c: None).run(events)
    assert result.calls[0].skipped and result.calls[0].response == "skipped by user"


def test_policy_without_conditions_decides_at_the_start() -> None:
    events, _ = single_create()
    decided: list[int | None] = []
    TurnCoordinator({"fs_create_file": RunPolicy.always(RunMode.UNATTENDED)},
                    on_decision=lambda c: decided.append(c.decided_at)).run(events)
    assert decided == [0]


def test_unknown_tool_uses_the_star_policy_or_asks() -> None:
    events = call_events(0, "c", "mystery", ['{"a": 1}']) + [Flush(0), Finished(FinishReason.TOOL_USE)]
    result = TurnCoordinator({}, prompt=lambda c: True).run(events)
    assert result.calls[0].mode is RunMode.ASK
    result = TurnCoordinator({"*": RunPolicy.always(RunMode.SKIP)}).run(list(events))
    assert result.calls[0].mode is RunMode.SKIP


def test_all_arguments_in_one_chunk_decide_in_that_chunk() -> None:
    args = {"content": "x" * 100, "path": "src/a.rs"}
    events = call_events(0, "c", "fs_create_file", [json.dumps(args)]) + [Flush(0), Finished(FinishReason.TOOL_USE)]
    decided: list[int | None] = []
    result = TurnCoordinator(policies("unattended"), on_decision=lambda c: decided.append(c.decided_at)).run(events)
    assert decided == [1] and result.calls[0].approved and result.calls[0].arguments == args


def test_flush_fallback_when_the_deciding_parameter_is_absent() -> None:
    rules = [RunRule(RunMode.SKIP, ParamCondition("/force", make_matcher("const", True))), RunRule(RunMode.UNATTENDED)]
    args = {"path": "a", "content": "b"}
    events = call_events(0, "c", "t", pieces_of(args, 3)) + [Flush(0), Finished(FinishReason.TOOL_USE)]
    decided: list[int | None] = []
    result = TurnCoordinator({"t": rules}, on_decision=lambda c: decided.append(c.decided_at)).run(events)
    assert decided == [len(pieces_of(args, 3))]  # the last chunk, which ends the object
    assert result.calls[0].approved


def test_content_before_path_waits_for_path() -> None:
    args = {"content": "y" * 200, "path": "src/a.rs"}
    pieces = pieces_of(args, 10)
    events = call_events(0, "c", "fs_create_file", pieces) + [Flush(0), Finished(FinishReason.TOOL_USE)]
    decided: list[int | None] = []
    TurnCoordinator(policies("unattended"), on_decision=lambda c: decided.append(c.decided_at)).run(events)
    text = json.dumps(args)
    assert decided == [(text.index('a.rs"') + 4) // 10 + 1]


def test_nested_match_decides_while_patterns_stream() -> None:
    args = {"path": "x", "patterns": [{"paths": ["lib/a"], "old": "a" * 50},
                                       {"paths": ["docs/b.md"], "old": "b" * 300, "new": "c" * 300}]}
    pieces = pieces_of(args, 8)
    events = call_events(0, "c", "fs_modify_file", pieces) + [Flush(0), Finished(FinishReason.TOOL_USE)]
    decided: list[tuple] = []
    TurnCoordinator(policies(), on_decision=lambda c: decided.append((c.mode, c.decided_at))).run(events)
    text = json.dumps(args)
    # The grant needs every path under docs/: "lib/a" decides it (ask) as soon as it completes.
    assert decided == [(RunMode.ASK, (text.index('lib/a"') + 5) // 8 + 1)]
    assert decided[0][1] < len(pieces) // 2


def test_render_hook_sees_progress_of_calls_not_dropped() -> None:
    events, _ = single_create()
    items: list[Any] = []
    TurnCoordinator(policies("unattended"), render=items.append).run(events)
    rendered = [i for i in items if type(i) is ToolCallArgumentProgress]
    assert rendered[0] == ToolCallArgumentProgress("call_1", "fs_create_file", ObjectEntry("path", String("src/")))
    assert rendered[-1].fragment.__class__.__name__ == "Done"


# -- several calls --------------------------------------------------------------------------------


def interleaved(first: dict, second: dict, size: int = 6) -> list[Any]:
    """Two calls whose argument chunks alternate (as the OpenAI Chat format allows)."""
    a, b = pieces_of(first, size), pieces_of(second, size)
    events: list[Any] = [Part(0, ToolCall(ToolCallStart("call_a", "fs_create_file"))),
                         Part(1, ToolCall(ToolCallStart("call_b", "fs_create_file")))]
    for i in range(max(len(a), len(b))):
        if i < len(a):
            events.append(Part(0, ToolCall(ArgumentChunk(a[i]))))
        if i < len(b):
            events.append(Part(1, ToolCall(ArgumentChunk(b[i]))))
    return events + [Flush(0), Flush(1), Finished(FinishReason.TOOL_USE)]


def test_declined_call_is_dropped_but_the_stream_stays_open_for_the_other() -> None:
    first = {"path": "src/a.rs", "content": "a" * 300}
    second = {"path": "src/b.rs", "content": "b" * 200}
    events = interleaved(first, second)
    rendered: list[str] = []
    closed: list[bool] = []
    ran: list[str] = []
    co = TurnCoordinator(policies(), prompt=lambda c: c.id == "call_b", render=lambda p: rendered.append(getattr(p, "tool_call_id", None)),
                         execute=lambda c: ran.append(c.id))
    result = co.run(Counted(events), close=lambda: closed.append(True))
    a, b = result.calls
    assert a.skipped and a.dropped and a.dropped_chunks > 0 and a.arguments is None
    assert b.approved and b.arguments == second and ran == ["call_b"]
    assert not result.cancelled and closed == []
    assert result.finish_reason is FinishReason.TOOL_USE
    # Nothing of call_a is rendered after its decline.
    assert rendered.count("call_a") < len([e for e in events if isinstance(e, Part) and e.index == 0])


def test_dropped_call_cancels_once_the_other_call_is_complete() -> None:
    # call_a is declined while call_b streams; call_b ends first, then only dropped chunks remain.
    first = {"path": "src/a.rs", "content": "a" * 600}
    second = {"path": "src/b.rs", "content": "b"}
    events = interleaved(first, second)
    order = [e for e in events if not isinstance(e, Flush)]
    # Flush call_b as soon as its chunks end (providers close a call when it is complete).
    last_b = max(i for i, e in enumerate(order) if isinstance(e, Part) and e.index == 1)
    order.insert(last_b + 1, Flush(1))
    order.insert(-1, Flush(0))
    source = Counted(order)
    closed: list[bool] = []
    result = TurnCoordinator(policies(), prompt=lambda c: c.id == "call_b").run(source, close=lambda: closed.append(1))
    a, b = result.calls
    assert b.approved and b.arguments == second
    assert a.skipped and result.cancelled and closed == [1]
    assert source.taken == last_b + 2  # right after call_b's flush


def test_deferred_answer_applies_between_events() -> None:
    events, args = single_create()
    pending: list[ToolCallState] = []
    answered_at: list[int] = []

    def render(progress: ToolCallArgumentProgress) -> None:
        if pending and not answered_at and pending[0].chunks >= pending[0].decided_at + 5:
            answered_at.append(pending[0].chunks)
            pending[0].approve()  # e.g. from a UI thread, while the arguments keep streaming

    co = TurnCoordinator(policies(), prompt=lambda c: pending.append(c), render=render, early_answer="call")
    result = co.run(events)
    call = result.calls[0]
    assert answered_at and answered_at[0] > call.decided_at
    assert call.approved and call.arguments == args


def test_answer_after_run_returns() -> None:
    events, args = single_create()
    ran: list[dict] = []
    co = TurnCoordinator(policies(), prompt=lambda c: None, execute=lambda c: ran.append(c.arguments),
                         early_answer="call")
    result = co.run(events)
    call = result.calls[0]
    assert call.status is CallStatus.PROMPTING and call.complete
    call.approve()
    assert call.approved and ran == [args]


def test_async_prompt_is_answered_while_the_arguments_stream() -> None:
    events, args = single_create(content="z" * 2000)
    progress_at_answer: list[int] = []

    async def main() -> Any:
        co: TurnCoordinator

        async def prompt(call: ToolCallState) -> bool:
            while call.streaming and call.chunks < call.decided_at + 20:  # the user reads while the rest arrives
                await asyncio.sleep(0)
            progress_at_answer.append(call.chunks)
            return True

        async def slow_events():
            for event in events:
                await asyncio.sleep(0)
                yield event

        ran: list[dict] = []

        async def execute(call: ToolCallState) -> str:
            ran.append(call.arguments)
            return "done"

        co = TurnCoordinator(policies(), prompt=prompt, execute=execute, early_answer="call")
        result = await co.arun(slow_events())
        return result, ran

    result, ran = asyncio.run(main())
    call = result.calls[0]
    assert progress_at_answer and progress_at_answer[0] >= call.decided_at + 20
    assert call.approved and ran == [args] and call.result == "done"


def test_async_decline_cancels_and_closes() -> None:
    events, args = single_create(content="q" * 2000)

    async def main() -> Any:
        closed: list[bool] = []

        async def close() -> None:
            closed.append(True)

        async def prompt(call: ToolCallState) -> bool:
            return False

        async def gen():
            for event in events:
                await asyncio.sleep(0)
                yield event

        result = await TurnCoordinator(policies(), prompt=prompt).arun(gen(), close=close)
        return result, closed

    result, closed = asyncio.run(main())
    assert result.cancelled and closed == [True]
    call = result.calls[0]
    assert call.skipped and call.chunks < len(pieces_of(args)) // 2


def test_sync_run_rejects_async_callbacks() -> None:
    events, _ = single_create()

    async def prompt(call: ToolCallState) -> bool:
        return True

    with pytest.raises(TypeError, match="arun"):
        TurnCoordinator(policies(), prompt=prompt).run(events)


def test_duplicate_key_that_contradicts_the_early_decision_is_asked_again() -> None:
    text = '{"path": "src/a.rs", "content": "x", "path": "/etc/passwd"}'
    events = call_events(0, "c", "fs_create_file", [text[:20], text[20:]]) + [Flush(0), Finished(FinishReason.TOOL_USE)]
    prompts: list[dict] = []
    ran: list[dict] = []
    lenient = EventBuilder(parser_factory=IncrementalArgParser)  # lets the duplicate through (last wins)
    co = TurnCoordinator(policies("unattended", other="ask"), prompt=lambda c: prompts.append(c.arguments) or False,
                         execute=lambda c: ran.append(c.arguments), builder=lenient)
    result = co.run(events)
    assert prompts == [{"path": "/etc/passwd", "content": "x"}]
    assert ran == [] and result.calls[0].skipped


# -- the recorded 20 KB fs_create_file call ---------------------------------------------------------


@pytest.mark.skipif("anthropic/create_file_20k" not in RECORDINGS, reason="tests/recordings not available")
@pytest.mark.parametrize(("key", "module"), [("anthropic/create_file_20k", anthropic),
                                             ("openai_chat/create_file_20k", openai_chat)])
def test_recorded_20k_create_file(key: str, module: Any) -> None:
    rec = RECORDINGS[key]
    (_, _, args), = rec.tool_calls
    # All the argument chunks, to find the one that completes "path".
    approved = TurnCoordinator(policies(), prompt=lambda c: True, early_answer="call").run(
        module.to_events(rec.items))
    call = approved.calls[-1]
    assert call.arguments == args and call.approved
    total = call.chunks
    assert call.decided_at is not None and call.decided_at <= 5 < total // 100

    declined_source = Counted(list(module.to_events(rec.items)))
    declined = TurnCoordinator(policies(), prompt=lambda c: False).run(declined_source, close=lambda: None)
    assert declined.cancelled and declined.calls[-1].chunks == call.decided_at
    assert declined_source.taken < len(declined_source.events) // 100


def test_async_edit_runs_once_on_complete_arguments() -> None:
    events, args = single_create()
    edits: list[dict] = []

    async def edit(call: ToolCallState) -> dict:
        edits.append(dict(call.arguments))
        await asyncio.sleep(0)
        return {**call.arguments, "content": "edited"}

    async def main() -> Any:
        ran: list[dict] = []
        co = TurnCoordinator({"fs_create_file": RunPolicy.always(RunMode.EDIT)}, edit=edit,
                             execute=lambda c: ran.append(c.arguments))
        return await co.arun(events), ran

    result, ran = asyncio.run(main())
    assert result.calls[0].decided_at == 0  # no condition: decided when the call starts
    assert edits == [args]
    assert ran == [{**args, "content": "edited"}]
