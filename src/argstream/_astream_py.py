"""The object ``aiter_tool_stream`` returns, in pure Python (the twin of ``_astream``).

``aiter_tool_stream``'s body is an async generator (the opener). It reads the stream's first item,
sets the stream up, and, where the stream goes on through one per-item ``step``, yields a
:class:`Handover` instead of looping itself; :class:`AsyncItems` then reads the stream and calls
``step``. When the stream ends the opener is resumed where it handed over; an exception the stream or
``step`` raised is thrown into it there, so its handlers run as they did around its own loop. The
compiled twin saves an async generator frame per item this way; this one keeps the same steps.
"""

from __future__ import annotations

from typing import Any, AsyncGenerator, Awaitable, Callable

_END = object()


class Handover:
    """What the opener yields to hand its loop over: each item of ``source`` (async when
    ``is_async``) goes to ``step``, which returns the stream items of it, or the one item itself
    when there is exactly one and the stream goes on; after a list, ``getattr(owner, flag)`` says
    whether the stream is over."""

    __slots__ = ("step", "owner", "flag", "source", "is_async")

    def __init__(self, step: Callable[[Any], Any], owner: Any, flag: str, source: Any, is_async: bool) -> None:
        self.step = step
        self.owner = owner
        self.flag = flag
        self.source = source
        self.is_async = is_async


class AsyncItems:
    """The async iterator ``aiter_tool_stream`` returns (see the module's docstring)."""

    __slots__ = ("_opener", "_handover", "_thrown", "_out", "_at", "_running")

    def __init__(self, opener: AsyncGenerator[Any, None]) -> None:
        self._opener = opener
        self._handover: Handover | None = None
        self._thrown: BaseException | None = None
        self._out: list[Any] = []
        self._at = 0
        self._running = False

    def __aiter__(self) -> AsyncItems:
        return self

    def __anext__(self) -> Awaitable[Any]:
        if self._running:
            raise RuntimeError("anext(): asynchronous generator is already running")
        return self._next()

    def asend(self, value: Any) -> Awaitable[Any]:
        """As an async generator's ``asend``: the value goes to a ``yield`` whose value the body never
        reads, so this is ``__anext__()``."""
        return self.__anext__()

    def athrow(self, typ: Any, val: Any = None, tb: Any = None) -> Awaitable[Any]:
        """As an async generator's ``athrow`` (an awaitable): the exception is raised in the body where
        it stands (at its handover, while this object reads the stream), and items not yet delivered
        are dropped, as the body's own loop would have dropped them."""
        if self._running:
            raise RuntimeError("athrow(): asynchronous generator is already running")
        if val is not None:
            typ = val.with_traceback(tb) if tb is not None else val
        elif isinstance(typ, type):
            typ = typ()
        self._handover = None
        self._out = []
        self._at = 0
        self._thrown = typ
        return self._next()

    def aclose(self) -> Awaitable[None]:
        """Close the stream as closing ``aiter_tool_stream``'s generator does (an awaitable): the
        opener is closed where it is, and nothing more is read or delivered."""
        if self._running:
            raise RuntimeError("aclose(): asynchronous generator is already running")
        self._handover = None
        self._thrown = None
        self._out = []
        self._at = 0
        return self._opener.aclose()

    async def _next(self) -> Any:
        self._running = True
        try:
            while True:
                if self._at < len(self._out):
                    self._at += 1
                    return self._out[self._at - 1]
                h = self._handover
                if h is not None:
                    try:
                        if h.is_async:
                            item = await h.source.__anext__()
                        else:
                            item = next(h.source, _END)
                            if item is _END:
                                self._handover = None
                                continue
                    except StopAsyncIteration:
                        self._handover = None
                        continue
                    except BaseException as e:  # the stream's: the opener's handlers take it
                        self._handover = None
                        self._thrown = e
                        continue
                    got = self._deliver(h, item)
                    if got is not _END:
                        return got
                    continue
                thrown = self._thrown
                if thrown is not None:
                    self._thrown = None
                    got = await self._opener.athrow(thrown)
                else:
                    got = await self._opener.__anext__()
                if type(got) is Handover:
                    self._handover = got
                    continue
                return got
        finally:
            self._running = False

    def _deliver(self, h: Handover, item: Any) -> Any:
        """``step`` on one item of the stream: the one item to return, or ``_END`` (the items are in
        ``_out``, or there are none); an exception ``step`` raises goes to the opener."""
        try:
            got = h.step(item)
        except BaseException as e:
            self._handover = None
            self._thrown = e
            return _END
        if type(got) is not list:
            return got
        self._out = got
        self._at = 0
        if getattr(h.owner, h.flag):
            self._handover = None
        return _END
