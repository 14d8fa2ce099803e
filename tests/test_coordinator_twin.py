"""The coordinator's compiled base (``policy/_handle.pyx``: ``handle``, the drivers' ``pump`` and the
fields a call's every delta touches) and its pure twin (``policy/_handle_py.py``) coordinate alike.

The coordinator module is loaded a second time on the twin's bases, and both coordinators are driven
over the same random provider streams (random event mixes, parallel calls, chunkings, cut-off and
invalid arguments, several responses, mutated item orders, a read that fails) with random policies and
random answers:
every call's state, every rendered item, what ran and what was raised must be the same.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import sys
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pipeline_fastpath import STREAMS, canon, canon_event, mutate

import argstream._backend as backend
from argstream import EventBuilder
from argstream.policy import RunMode, RunRule, coordinator, drivers
from argstream.policy.matchers import ConstMatcher, PrefixMatcher
from argstream.policy.rules import ParamCondition

pytestmark = pytest.mark.skipif(backend.BACKEND == "python", reason="the pure twin is the only base here")


@pytest.fixture(scope="module")
def twin() -> ModuleType:
    """``policy/coordinator.py`` again, its bases taken from the pure twin."""
    spec = importlib.util.spec_from_file_location("argstream.policy._coordinator_on_twin", coordinator.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(backend, "BACKEND", "python")
        patch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
        spec.loader.exec_module(module)
    return module


def test_the_twin_module_runs_on_the_pure_bases(twin: ModuleType) -> None:
    from argstream.policy import _handle, _handle_py

    assert issubclass(coordinator.TurnCoordinator, _handle.CoordinatorBase)
    assert issubclass(coordinator.ToolCallState, _handle.CallBase)
    assert issubclass(twin.TurnCoordinator, _handle_py.CoordinatorBase)
    assert issubclass(twin.ToolCallState, _handle_py.CallBase)
    assert twin.END is coordinator.END and twin.PUMPED is coordinator.PUMPED


def test_call_fields_live_on_the_base_and_keep_their_defaults(twin: ModuleType) -> None:
    for module in (coordinator, twin):
        call = module.ToolCallState(2)
        assert (call.name, call.mode, call.dropped, call.chunks, call.dropped_chunks, call.current_key,
                call.completed_keys) == ("", None, False, 0, 0, None, [])
        assert not set(module.CALL_FIELDS) & set(vars(call)), "held by the base, not the instance dict"
        call.chunks += 3
        call.dropped = True
        assert "chunks=3" in repr(call) and "dropped=True" in repr(call)
        other = module.ToolCallState(1)
        assert other.completed_keys is not call.completed_keys


KEYS = ("path", "content", "a")

values = st.recursive(st.none() | st.booleans() | st.integers(-9, 9) | st.sampled_from(["src/x", "/etc/p", "", "é"]),
                      lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(KEYS), inner,
                                                                                    max_size=2),
                      max_leaves=5)
arguments = st.dictionaries(st.sampled_from(KEYS), values | st.text(max_size=30), max_size=3)
modes = st.sampled_from(list(RunMode))
conditions = st.builds(ParamCondition, st.sampled_from(["/path", "/a", "/content"]),
                       st.one_of(st.builds(PrefixMatcher, st.sampled_from(["src/", "/", ""])),
                                 st.builds(ConstMatcher, st.sampled_from(["src/x", "/etc/p"]))))
rules = st.one_of(modes, st.lists(st.builds(RunRule, modes, conditions), max_size=2).flatmap(
    lambda conditional: modes.map(lambda last: [*conditional, RunRule(last)])))


class Failed(Exception):
    """The provider stream's read failed (a dropped connection)."""


def reading(items: list[Any], fail_at: int | None) -> Any:
    for n, item in enumerate(items):
        if n == fail_at:
            raise Failed(f"read {n} failed")
        yield item


async def areading(items: list[Any], fail_at: int | None, seed: int) -> Any:
    """``reading`` as an async stream that gives the event loop a turn before some of its items."""
    rng = random.Random(seed)
    for n, item in enumerate(items):
        if n == fail_at:
            raise Failed(f"read {n} failed")
        if rng.random() < 0.3:
            await asyncio.sleep(0)
        yield item


def drive(driver: str, co: Any, items: list[Any], fail_at: int | None = None, seed: int = 0) -> Any:
    """Run ``co`` over ``items`` with ``driver``: ``inline``, ``threaded`` or ``async`` (``arun``)."""
    if driver == "async":
        return asyncio.run(drivers.arun(co, areading(items, fail_at, seed)))
    return (drivers.run_threaded if driver == "threaded" else drivers.run_inline)(co, reading(items, fail_at))


def outcome(module: ModuleType, items: list[Any], fmt: str, policy: Any, seed: int, driver: str,
            make_parser: Any, fail_at: int | None = None) -> list[Any]:
    """Everything one coordinator of ``module`` did with ``items`` (a read failing at ``fail_at``)."""
    rng = random.Random(seed)
    seen: list[Any] = []
    ran: list[Any] = []

    asked: list[Any] = []

    def prompt(call: Any) -> Any:
        if driver == "threaded":  # on the worker thread, at a time of its own: which calls, and no answer
            # (and no editor: an edit applies whenever the worker finishes it)
            asked.append((call.index, call.response_index))
            return None
        seen.append(("prompt", call.index, call.partial_arguments(), call.streaming_parameter))
        return rng.choice([True, False, None, "edit"])

    def edit(call: Any) -> Any:
        seen.append(("edit", call.index, call.arguments))
        return rng.choice([None, {"path": "src/edited"}, call.arguments])

    def render(item: Any) -> None:
        seen.append(canon(item))

    builder = EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, max_depth=64, flat=True))
    co = module.TurnCoordinator({"tool": policy}, prompt=prompt, edit=None if driver == "threaded" else edit,
                                render=render, builder=builder,
                                execute=lambda call: ran.append((call.id, json.dumps(call.arguments))),
                                on_decision=lambda call: seen.append(("decided", call.index, call.mode)),
                                provider=fmt)
    try:
        result = drive(driver, co, items, fail_at, seed)
        end: Any = (result.finish_reason, result.cancelled, [canon_event(event) for event in result.events])
    except Exception as exc:  # noqa: BLE001 - the same error either way
        end = ("raised", type(exc).__name__, str(exc))
    calls = [(c.index, c.response_index, c.id, c.name, c.mode, c.status.value, c.response,
              json.dumps(c.arguments), repr(c.error), c.streaming, c.dropped, c.chunks, c.dropped_chunks,
              c.decided_at, c.executed, [v.message for v in c.violations], c.reprompt, c.prompts, c.early_prompt,
              json.dumps(c.basis), list(c.completed_keys), c.current_key, c.streaming_parameter,
              json.dumps(c.partial_arguments())) for c in co.calls.values()]
    # The worker may still be prompting after a read failed: what it asked is compared on clean ends only.
    return [end, calls, seen, ran, sorted(asked) if end[0] != "raised" else None]


@pytest.mark.parametrize("driver", ["inline", "threaded", "async"])
@pytest.mark.parametrize("fmt", sorted(STREAMS))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None)
@given(responses=st.lists(st.lists(st.one_of(st.none(), arguments), min_size=1, max_size=3), min_size=1, max_size=2),
       policy=rules, seed=st.integers(0, 2**32), mutated=st.booleans(), fail_at=st.none() | st.integers(0, 60))
def test_the_compiled_base_coordinates_as_its_twin(twin: ModuleType, fmt: str, driver: str,
                                                   responses: list[list[Any]], policy: Any, seed: int,
                                                   mutated: bool, fail_at: int | None, make_parser: Any) -> None:
    rng = random.Random(seed)
    items = STREAMS[fmt](responses, rng)
    if mutated:
        items = mutate(items, rng)
    compiled = outcome(coordinator, items, fmt, policy, seed, driver, make_parser, fail_at)
    assert compiled == outcome(twin, items, fmt, policy, seed, driver, make_parser, fail_at)


@pytest.mark.parametrize("module", ["compiled", "twin"])
@pytest.mark.parametrize("driver", ["inline", "threaded", "async"])
def test_a_failed_read_ends_the_response_and_is_raised(twin: ModuleType, module: str, driver: str,
                                                        make_parser: Any) -> None:
    """The pump reports a read's ``Exception`` as the stream's failure (the call cut off never runs),
    then raises it; a ``BaseException`` (Ctrl-C) is raised as it is."""
    items = STREAMS["anthropic"]([[{"path": "src/x", "content": "y" * 200}]], random.Random(1))
    base_error = asyncio.CancelledError() if driver == "async" else KeyboardInterrupt()
    for error, reported in ((Failed("dropped"), True), (base_error, False)):
        ran: list[Any] = []
        rendered: list[Any] = []
        co = (coordinator if module == "compiled" else twin).TurnCoordinator(
            {"tool": "unattended"}, provider="anthropic", execute=ran.append, render=rendered.append,
            builder=EventBuilder(parser_factory=lambda: make_parser(flat=True)))

        def source() -> Any:
            yield from items[:40]
            raise error

        async def asource() -> Any:
            for item in source():
                await asyncio.sleep(0)
                yield item

        with pytest.raises(type(error)):
            if driver == "async":
                asyncio.run(drivers.arun(co, asource()))
            else:
                (drivers.run_threaded if driver == "threaded" else drivers.run_inline)(co, source())
        (call,) = co.calls.values()
        assert ran == [] and call.chunks > 0 and not call.executed
        assert (co.finish_reason is not None and co.finish_reason.value == "error") is reported


@pytest.mark.parametrize("module", ["compiled", "twin"])
@pytest.mark.parametrize("driver", ["inline", "threaded", "async"])
def test_a_subclass_that_overrides_handle_sees_every_item(twin: ModuleType, module: str, driver: str) -> None:
    """The drivers' reading loop calls a subclass's own ``handle`` for every item it reads (the compiled
    one calls its C step directly only when ``handle`` is not overridden)."""
    items = STREAMS["anthropic"]([[{"path": "src/x", "content": "y" * 100}]], random.Random(2))
    base = (coordinator if module == "compiled" else twin).TurnCoordinator

    class Counting(base):  # type: ignore[misc, valid-type]
        seen = 0

        def handle(self, event: Any) -> None:
            Counting.seen += 1
            super().handle(event)

    co = Counting({"tool": "unattended"}, provider="anthropic", execute=lambda call: None)
    result = drive(driver, co, items)
    assert Counting.seen == len(items) and result.calls[0].executed


class Later:
    """An awaitable that is not a coroutine: its ``__await__`` waits for a future, then gives ``value``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Any:
        future = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(future.set_result, None)
        yield from future.__await__()
        return self.value


class LaterStream:
    """An async iterator whose ``__anext__`` gives ``Later`` awaitables (as some clients' streams do)."""

    def __init__(self, items: list[Any]) -> None:
        self.items = iter(items)

    def __aiter__(self) -> LaterStream:
        return self

    def __anext__(self) -> Any:
        for item in self.items:
            return Later(item)
        raise StopAsyncIteration


@pytest.mark.parametrize("module", ["compiled", "twin"])
def test_the_async_pump_awaits_any_awaitable_a_stream_gives(twin: ModuleType, module: str) -> None:
    items = STREAMS["openai_chat"]([[{"path": "src/x", "content": "y" * 80}]], random.Random(3))
    ran: list[Any] = []
    co = (coordinator if module == "compiled" else twin).TurnCoordinator(
        {"tool": "unattended"}, provider="openai_chat", execute=lambda call: ran.append(call.arguments))
    result = asyncio.run(drivers.arun(co, LaterStream(items)))
    assert ran == [{"path": "src/x", "content": "y" * 80}] and result.calls[0].executed


@pytest.mark.parametrize("module", ["compiled", "twin"])
def test_cancelling_the_task_reaches_the_read_in_progress(twin: ModuleType, module: str) -> None:
    """A task cancelled while the stream's read waits: the read sees the cancellation (its ``finally``
    runs), ``arun`` raises it, the response is not reported failed and the call cut off never runs."""
    items = STREAMS["anthropic"]([[{"path": "src/x", "content": "y" * 200}]], random.Random(4))
    ran: list[Any] = []
    seen: list[str] = []
    co = (coordinator if module == "compiled" else twin).TurnCoordinator(
        {"tool": "unattended"}, provider="anthropic", execute=ran.append)

    async def source() -> Any:
        try:
            for n, item in enumerate(items):
                if n == 30:
                    await asyncio.Event().wait()  # a read that never completes
                yield item
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        finally:
            seen.append("finally")

    async def main() -> None:
        task = asyncio.ensure_future(drivers.arun(co, source()))
        while co.calls == {} or next(iter(co.calls.values())).chunks < 20:
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    (call,) = co.calls.values()
    assert seen == ["cancelled", "finally"] and ran == [] and not call.executed
    assert co.finish_reason is None
