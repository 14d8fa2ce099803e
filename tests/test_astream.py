"""``aiter_tool_stream``'s object (``_astream.AsyncItems`` and its twin): the opener's items, then the
stream read through ``step`` after a ``Handover``, then the opener again; the stream's and ``step``'s
exceptions reach the opener's handlers; cancellation, ``aclose`` and real waits behave as they do
around an async generator's own loop."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recordings.generate import RECORDINGS as OWN

from argstream import _astream_py, _backend
from argstream.stream import StreamFinished, aiter_tool_stream, iter_tool_stream

BACKENDS = [pytest.param(_astream_py, id="python")]
if _backend.astream_c is not None:
    BACKENDS.append(pytest.param(_backend.astream_c, id="cython"))


class Boom(Exception):
    pass


class Owner:
    """A step's owner: over once it has seen ``"stop"``."""

    def __init__(self) -> None:
        self.over = False
        self.seen: list[object] = []

    def step(self, item: object) -> object:
        self.seen.append(item)
        if item == "boom":
            raise Boom("step")
        if item == "stop":
            self.over = True
            return ["stopped", "here"]
        if item == "none":
            return []
        if item == "two":
            return ["two-a", "two-b"]
        return f"<{item}>"


async def agen(items, *, wait=False, fail=None):
    for item in items:
        if wait:
            await asyncio.sleep(0)
        yield item
    if fail is not None:
        raise fail


def opener(mod, source, owner, log, *, is_async=True):
    """An opener as ``aiter_tool_stream``'s body is: items, a handover in a ``try``, items after."""

    async def body():
        log.append("start")
        yield "first"
        try:
            yield mod.Handover(owner.step, owner, "over", source, is_async)
            log.append("resumed")
            if owner.over:
                return
            yield "end"
        except Exception as exc:
            log.append(f"failed: {exc}")
            yield "failed"
            raise
        except BaseException as exc:
            log.append(f"base: {type(exc).__name__}")
            raise

    return mod.AsyncItems(body())


async def collect(it):
    return [item async for item in it]


@pytest.mark.parametrize("mod", BACKENDS)
@pytest.mark.parametrize("wait", [False, True])
async def test_items_pass_through_the_handover_and_the_opener_resumes(mod, wait):
    owner, log = Owner(), []
    it = opener(mod, agen(["a", "none", "two", "b"], wait=wait), owner, log)
    assert await collect(it) == ["first", "<a>", "two-a", "two-b", "<b>", "end"]
    assert log == ["start", "resumed"]
    assert [i async for i in it] == []  # ended: stays ended


@pytest.mark.parametrize("mod", BACKENDS)
async def test_a_plain_iterable_source_is_read_without_awaiting(mod):
    owner, log = Owner(), []
    it = opener(mod, iter(["a", "two", "b"]), owner, log, is_async=False)
    assert await collect(it) == ["first", "<a>", "two-a", "two-b", "<b>", "end"]


@pytest.mark.parametrize("mod", BACKENDS)
@pytest.mark.parametrize("is_async", [True, False])
async def test_over_stops_reading_after_the_last_items(mod, is_async):
    owner, log = Owner(), []
    source = agen(["a", "stop", "never"]) if is_async else iter(["a", "stop", "never"])
    it = opener(mod, source, owner, log, is_async=is_async)
    assert await collect(it) == ["first", "<a>", "stopped", "here"]
    assert owner.seen == ["a", "stop"] and log == ["start", "resumed"]


@pytest.mark.parametrize("mod", BACKENDS)
@pytest.mark.parametrize("is_async", [True, False])
async def test_the_streams_exception_reaches_the_openers_handler(mod, is_async):
    owner, log, seen = Owner(), [], []

    def sync_failing():
        yield "a"
        raise Boom("stream")

    source = agen(["a"], fail=Boom("stream")) if is_async else sync_failing()
    with pytest.raises(Boom, match="stream"):
        async for item in opener(mod, source, owner, log, is_async=is_async):
            seen.append(item)
    assert seen == ["first", "<a>", "failed"]
    assert log == ["start", "failed: stream"]


@pytest.mark.parametrize("mod", BACKENDS)
async def test_the_steps_exception_reaches_the_openers_handler(mod):
    owner, log, seen = Owner(), [], []
    with pytest.raises(Boom, match="step"):
        async for item in opener(mod, agen(["a", "boom", "b"]), owner, log):
            seen.append(item)
    assert seen == ["first", "<a>", "failed"] and owner.seen == ["a", "boom"]


@pytest.mark.parametrize("mod", BACKENDS)
async def test_cancelled_while_a_read_waits(mod):
    owner, log = Owner(), []
    gate = asyncio.Event()
    started = asyncio.Event()

    async def source():
        yield "a"
        started.set()
        await gate.wait()
        yield "b"

    it = opener(mod, source(), owner, log)
    seen = []

    async def consume():
        async for item in it:
            seen.append(item)

    task = asyncio.ensure_future(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["first", "<a>"]
    assert log == ["start", "base: CancelledError"]  # as at an async generator's own ``async for``


@pytest.mark.parametrize("mod", BACKENDS)
async def test_aclose_during_the_handover_runs_the_openers_cleanup(mod):
    owner = Owner()
    closed = []

    async def body():
        try:
            yield "first"
            yield mod.Handover(owner.step, owner, "over", agen(["a", "b"]), True)
        except GeneratorExit:
            closed.append(True)
            raise

    it = mod.AsyncItems(body())
    assert await it.__anext__() == "first"
    assert await it.__anext__() == "<a>"
    await it.aclose()
    assert closed == [True]
    with pytest.raises(StopAsyncIteration):
        await it.__anext__()


@pytest.mark.parametrize("mod", BACKENDS)
async def test_asend_and_athrow_as_an_async_generator_has_them(mod):
    """``asend(value)`` is ``__anext__()`` (the body never reads a ``yield``'s value); ``athrow`` raises
    in the body where it stands, dropping items of the last step not delivered yet."""
    owner, log = Owner(), []
    it = opener(mod, agen(["a", "two", "b"]), owner, log)
    assert await it.asend(None) == "first"
    assert await it.asend("ignored") == "<a>"
    assert await it.__anext__() == "two-a"
    assert await it.athrow(Boom("thrown")) == "failed"  # "two-b" dropped, as the body's own loop drops it
    with pytest.raises(Boom, match="thrown"):
        await it.__anext__()
    assert log == ["start", "failed: thrown"] and owner.seen == ["a", "two"]
    with pytest.raises(StopAsyncIteration):
        await it.asend(None)


@pytest.mark.parametrize("mod", BACKENDS)
@pytest.mark.parametrize("call", ["__anext__", "aclose", "athrow"])
async def test_a_call_while_a_read_waits_is_refused(mod, call):
    """A second ``__anext__``, ``aclose`` or ``athrow`` while a read waits: refused, as an async
    generator refuses them; the read in progress then completes, and closing afterwards works."""
    owner, log = Owner(), []
    gate = asyncio.Event()

    async def source():
        await gate.wait()
        yield "a"

    it = opener(mod, source(), owner, log)
    assert await it.__anext__() == "first"
    pending = asyncio.ensure_future(it.__anext__())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="already running"):
        getattr(it, call)(*([Boom("x")] if call == "athrow" else []))
    gate.set()
    assert await pending == "<a>"
    await it.aclose()
    assert log == ["start", "base: GeneratorExit"]  # closed at its handover


class BadSource:
    """An async iterator whose ``__anext__`` gives what ``await`` cannot take."""

    def __init__(self, gives):
        self.gives = gives

    def __aiter__(self):
        return self

    def __anext__(self):
        return self.gives


class NoThrow:
    """An awaitable whose iterator has no ``throw``: yields once, then returns ``item``."""

    def __init__(self, item):
        self.item, self.waited = item, False

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        if not self.waited:
            self.waited = True
            return None  # a bare yield: asyncio's task runs it again at once
        raise StopIteration(self.item)


@pytest.mark.parametrize("mod", BACKENDS)
@pytest.mark.parametrize("gives", [42, None, "text"])
async def test_a_source_whose_anext_is_not_awaitable_fails_through_the_openers_handler(mod, gives):
    owner, log = Owner(), []
    seen = []
    with pytest.raises(TypeError):
        async for item in opener(mod, BadSource(gives), owner, log):
            seen.append(item)
    assert seen == ["first", "failed"] and log[0] == "start" and log[1].startswith("failed: ")


@pytest.mark.parametrize("mod", BACKENDS)
async def test_a_read_awaitable_without_throw(mod):
    """A read whose iterator has no ``throw`` still delivers its item (and a plain ``yield None`` inside
    it goes up to the event loop)."""
    owner, log = Owner(), []

    class Source:
        def __init__(self):
            self.left = ["a", "b"]

        def __aiter__(self):
            return self

        def __anext__(self):
            if not self.left:
                raise StopAsyncIteration
            return NoThrow(self.left.pop(0))

    assert await collect(opener(mod, Source(), owner, log)) == ["first", "<a>", "<b>", "end"]


@pytest.mark.parametrize("mod", BACKENDS)
@pytest.mark.parametrize("how", ["anext", "next", "send", "close", "aclose"])
async def test_a_stream_that_steps_its_reader_from_inside_is_refused(mod, how):
    """The stream's own code stepping the object that reads it (a generator refuses it too): an error
    in that code, which ends the stream through the body's handler; no state is changed under it."""
    owner, log = Owner(), []
    holder = {}

    async def source():
        yield "a"
        it = holder["it"]
        if how == "anext":
            it.__anext__()
        elif how == "aclose":
            it.aclose()
        elif how == "next" and hasattr(it, "send"):
            next(it)
        elif how == "send" and hasattr(it, "send"):
            it.send(None)
        elif how == "close" and hasattr(it, "send"):
            it.close()
        else:
            raise RuntimeError("the twin has no such method: nothing to step")
        yield "b"

    holder["it"] = it = opener(mod, source(), owner, log)
    seen = []
    with pytest.raises((RuntimeError, ValueError), match="already|nothing to step"):
        async for item in it:
            seen.append(item)
    assert seen == ["first", "<a>", "failed"] and owner.seen == ["a"]


@pytest.mark.parametrize("mod", BACKENDS)
async def test_the_openers_own_error_is_raised_as_is(mod):
    async def body():
        yield "first"
        raise Boom("opener")

    it = mod.AsyncItems(body())
    assert await it.__anext__() == "first"
    with pytest.raises(Boom, match="opener"):
        await it.__anext__()


# -- aiter_tool_stream over real streams ------------------------------------------------------------


def _strip(items):  # the persisted events carry timestamps: compare the rest
    return [(type(i), i.reason) if isinstance(i, StreamFinished) else i for i in items]


STREAMS = ["anthropic/create_file_20k", "openai_chat/create_file_20k", "anthropic/parallel", "openai_chat/parallel",
           "anthropic/thinking_then_call"]


def sse(items) -> str:
    return "".join(f"data: {json.dumps(item)}\n\n" for item in items)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(STREAMS), waits=st.sets(st.integers(0, 400), max_size=30),
       fail_at=st.one_of(st.none(), st.integers(0, 400)), data=st.data())
def test_the_async_helper_gives_the_sync_helpers_items_and_error(name, waits, fail_at, data):
    """Random waits in the source and a failure at a random item (wire dicts, or raw SSE cut anywhere):
    the same items and error as the sync helper on the same items, from an async source and from a
    plain list."""
    items = OWN[name].items
    if data.draw(st.booleans(), label="raw SSE"):
        text = sse(items)
        cuts = sorted(data.draw(st.sets(st.integers(1, len(text) - 1), max_size=60), label="cuts"))
        items = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    if fail_at is not None:
        fail_at = min(fail_at, len(items))

    def sync_source():
        for n, item in enumerate(items):
            if n == fail_at:
                raise Boom(n)
            yield item
        if fail_at == len(items):
            raise Boom(fail_at)

    async def async_source():
        for n, item in enumerate(sync_source()):
            if n in waits:
                await asyncio.sleep(0)
            yield item

    def run_sync():
        out = []
        try:
            for item in iter_tool_stream(sync_source()):
                out.append(item)
        except Boom as exc:
            return _strip(out), exc.args
        return _strip(out), None

    async def run_async(source):
        out = []
        try:
            async for item in aiter_tool_stream(source):
                out.append(item)
        except Boom as exc:
            return _strip(out), exc.args
        return _strip(out), None

    expected = run_sync()
    source = data.draw(st.sampled_from(["async", "plain"]))
    got = asyncio.run(run_async(async_source() if source == "async" else sync_source()))
    assert got == expected


def test_the_helper_returns_an_async_iterator_with_the_async_generator_methods():
    import collections.abc

    it = aiter_tool_stream(OWN["anthropic/modify_file"].items)
    assert isinstance(it, collections.abc.AsyncIterator)
    assert all(callable(getattr(it, name)) for name in ("asend", "athrow", "aclose"))
    asyncio.run(it.aclose())  # closing one never started runs nothing
