"""Answers that arrive from another thread or from the event loop while a provider stream's argument deltas
take the coordinator's fast path (wire items fed as they are): each applies to its own call, by the next
item the driver reads, so a declined call's remaining deltas are dropped and an unapproved call never runs.

The answering thread is joined before the stream hands over its next item, so every test is deterministic.
Both drivers (``run``: threaded, ``arun``), three providers, both backends.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_turn_safety import BUILD

from argstream import EventBuilder
from argstream.policy import CallStatus, RunMode, RunRule, ToolCallState, TurnCoordinator
from argstream.policy.matchers import PrefixMatcher
from argstream.policy.rules import ParamCondition

POLICIES = {"write": [RunRule(RunMode.ASK, ParamCondition("/path", PrefixMatcher("src/"))), RunRule(RunMode.SKIP)]}
FIRST = {"path": "src/a.py", "content": "a" * 300}
SECOND = {"path": "src/b.py", "content": "b" * 300}


def from_thread(action: Callable[[], Any]) -> None:
    """Run ``action`` on another thread and wait for it (a UI thread answering)."""
    thread = threading.Thread(target=action)
    thread.start()
    thread.join()


class Answering:
    """The wire items, handed over one by one; ``answers`` (call index -> True / False) are given from
    another thread ``after`` items once the call is prompting (its prompt callback, on the threaded
    driver's worker, may not even have run yet: it answers "later"), and what the call's state is when
    the driver asks for the next item is kept in ``seen``."""

    def __init__(self, items: list[dict], answers: dict[int, bool], after: int = 10) -> None:
        self.items = items
        self.answers = answers
        self.after = after
        self.prompted: dict[int, ToolCallState] = {}
        self.waited: dict[int, int] = {}
        self.answered: dict[int, int] = {}  # call index -> argument chunks the call had when answered
        self.answered_item: dict[int, int] = {}  # call index -> items handed over when answered
        self.seen: dict[int, tuple[CallStatus, bool]] = {}  # call index -> (status, dropped) at the next item
        self.taken = 0
        self.co: TurnCoordinator | None = None

    def before_next(self) -> None:
        assert self.co is not None
        for call in self.co.calls.values():
            if call.status is CallStatus.PROMPTING:
                self.prompted.setdefault(call.index, call)
        for index, call in self.prompted.items():
            if index in self.answered and index not in self.seen:
                self.seen[index] = (call.status, call.dropped)
            if index in self.answers and index not in self.answered:
                self.waited[index] = self.waited.get(index, 0) + 1
                if self.waited[index] > self.after:
                    self.answered[index] = call.chunks
                    self.answered_item[index] = self.taken
                    from_thread(call.approve if self.answers[index] else call.decline)

    def __iter__(self) -> Iterator[dict]:
        for item in self.items:
            self.before_next()
            self.taken += 1
            yield item

    async def aiter(self) -> Any:
        for item in self.items:
            await asyncio.sleep(0)
            self.before_next()
            self.taken += 1
            yield item


def coordinate(fmt: str, make_parser: Any, answers: dict[int, bool], driver: str,
               calls: tuple[dict, ...] = (FIRST, SECOND)) -> tuple[Any, Answering, list, list]:
    items = BUILD[fmt]("r1", [(f"call_{i}", "write", args) for i, args in enumerate(calls)])
    source = Answering(items, answers)
    ran: list[tuple] = []
    closed: list[bool] = []
    builder = EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, flat=True))
    co = source.co = TurnCoordinator(POLICIES, prompt=lambda call: None, execute=lambda c: ran.append((c.id, c.arguments)),
                         builder=builder, provider=fmt, early_answer="call")
    if driver == "threaded":
        result = co.run(source, close=lambda: closed.append(True))
    else:
        result = asyncio.run(co.arun(source.aiter(), close=lambda: closed.append(True)))
    return result, source, ran, closed


@pytest.mark.parametrize("driver", ["threaded", "async"])
@pytest.mark.parametrize("fmt", sorted(BUILD))
def test_a_yes_and_a_no_from_another_thread_apply_to_their_own_calls(fmt: str, driver: str,
                                                                     make_parser: Any) -> None:
    result, source, ran, closed = coordinate(fmt, make_parser, {0: True, 1: False}, driver)
    first, second = result.calls
    assert 0 < source.answered[0] < first.chunks, "answered while its arguments streamed"
    assert source.seen[0] == (CallStatus.APPROVED, False), "the yes applied by the next item"
    assert first.approved and first.arguments == FIRST
    assert second.skipped and second.dropped and 0 < source.answered[1]
    assert second.chunks - source.answered[1] in (0, 1), "at most the delta read with the no is parsed"
    assert ran == [("call_0", FIRST)], "only the approved call ran, with its own arguments"
    if fmt == "openai_chat":  # the first call streams until the response ends: the stream goes on
        assert second.dropped_chunks > 0 and source.taken > source.answered_item[1] + 1
    else:  # the declined call was the last one streaming: the stream is closed at the next item
        assert source.taken == source.answered_item[1] + 1 and closed == [True] and result.cancelled


@pytest.mark.parametrize("driver", ["threaded", "async"])
@pytest.mark.parametrize("fmt", sorted(BUILD))
def test_a_no_from_another_thread_drops_the_rest_and_cancels_at_the_next_item(fmt: str, driver: str,
                                                                            make_parser: Any) -> None:
    result, source, ran, closed = coordinate(fmt, make_parser, {0: False}, driver, calls=(FIRST,))
    (call,) = result.calls
    assert call.skipped and call.dropped and call.response == "skipped by user"
    assert call.chunks - source.answered[0] in (0, 1), "at most the delta read with the no is parsed"
    assert source.taken == source.answered_item[0] + 1 < len(source.items), "closed at the next item"
    assert ran == [] and closed == [True] and result.cancelled


@pytest.mark.parametrize("driver", ["threaded", "async"])
@pytest.mark.parametrize("fmt", sorted(BUILD))
def test_an_unanswered_prompt_never_runs_its_call(fmt: str, driver: str, make_parser: Any) -> None:
    result, source, ran, closed = coordinate(fmt, make_parser, {1: True}, driver)
    first, second = result.calls
    assert 0 < source.answered[1] < second.chunks and 0 not in source.answered
    assert first.status is CallStatus.PROMPTING and first.complete
    assert second.approved and ran == [("call_1", SECOND)]
    assert closed == [] and not result.cancelled


def test_answers_queued_by_many_threads_each_apply_to_their_own_call(make_parser: Any) -> None:
    """Eight calls answered by eight threads at once, while the ninth still streams."""
    calls = tuple({"path": f"src/{i}.py", "content": str(i) * 200} for i in range(9))
    items = BUILD["anthropic"]("r1", [(f"call_{i}", "write", args) for i, args in enumerate(calls)])
    ran: list[tuple] = []
    done: list[bool] = []
    builder = EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, flat=True))
    co = TurnCoordinator(POLICIES, prompt=lambda call: None, execute=lambda c: ran.append((c.id, c.arguments)),
                         builder=builder, provider="anthropic", early_answer="call")

    def stream() -> Iterator[dict]:
        for item in items:
            prompting = [call for call in co.calls.values() if call.status is CallStatus.PROMPTING]
            if len(prompting) == 9 and not done:
                done.append(True)
                threads = [threading.Thread(target=call.approve if call.index % 2 else call.decline)
                           for call in prompting if call.index < 8]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
            yield item

    result = co.run(stream())
    for i, call in enumerate(result.calls[:8]):
        assert call.status is (CallStatus.APPROVED if i % 2 else CallStatus.SKIPPED), i
    assert done and result.calls[8].status is CallStatus.PROMPTING
    assert ran == [(f"call_{i}", calls[i]) for i in range(1, 8, 2)]


@pytest.mark.parametrize("fmt", sorted(BUILD))
def test_a_decided_call_shows_the_same_parameters_so_far_on_the_fast_path(fmt: str, make_parser: Any) -> None:
    """After the decision the fast path keeps only what ``partial_arguments()`` and ``streaming_parameter``
    read; at every item they are what the generic path (``to_events``) shows."""
    from test_turn_safety import MODULES

    args = {"path": "src/a.py", "mode": "w", "content": "c" * 120, "tags": ["x", "y"], "last": {"k": 1}}
    items = BUILD[fmt]("r1", [("call_0", "write", args)])
    policies = {"write": [RunRule(RunMode.UNATTENDED, ParamCondition("/path", PrefixMatcher("src/")))]}

    def shown(source: Any, provider: Any) -> list[Any]:
        seen: list[Any] = []
        co: TurnCoordinator

        def render(item: Any) -> None:
            for call in co.calls.values():
                seen.append((type(item).__name__, call.mode, call.partial_arguments(), call.streaming_parameter))

        builder = EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, flat=True))
        co = TurnCoordinator(policies, render=render, builder=builder, provider=provider)
        co.run(source)
        return seen

    fast = shown(items, fmt)
    assert fast == shown(MODULES[fmt].to_events(items), None)
    assert any(mode is RunMode.UNATTENDED and partial == {"path": "src/a.py", "mode": "w"}
               for _, mode, partial, _ in fast)
