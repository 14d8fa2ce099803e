"""One parser, two callers (issue 18, free-threaded Python): a clear error, never a crash or a wrong value.

A parser or tokenizer takes one call at a time. A call entered while another runs (a second thread,
or a callback re-entering) raises ``ConcurrentUseError`` and reads nothing; the running call
completes normally; every later call raises ``ConcurrentUseError`` (a chunk is missing). These run
on the ordinary build, where the GIL still interleaves threads inside a call whenever Python code
runs there: a chunk's own ``__str__``/``__len__``, a sink callback, the pure twin's every line.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest

from argstream import DONE, ConcurrentUseError, Scalar, flatten
from argstream.parser import TokenizerC, TokenizerPy

from _support import aggregate

TOKENIZERS = [TokenizerPy] + ([TokenizerC] if TokenizerC is not None else [])


class Reentrant(str):
    """A chunk that, while the parser reads it, runs ``action`` once (through ``__str__`` on the
    compiled core, ``__len__`` on the twin)."""

    action: Any = None

    def _once(self) -> None:
        action, type(self).action = type(self).action, None
        if action is not None:
            action()

    def __str__(self) -> str:
        self._once()
        return str.__str__(self)

    def __len__(self) -> int:
        self._once()
        return str.__len__(self)


def reentrant(text: str, action: Any) -> str:
    cls = type("Chunk", (Reentrant,), {"action": staticmethod(action)})
    return cls(text)


def test_a_chunk_that_reenters_its_parser(make_parser) -> None:
    p = make_parser(flat=True)
    assert p.push("[1,") == [((0,), Scalar(1)), ((0,), DONE)]
    inner: list[Any] = []

    def again() -> None:
        try:
            p.push("2")
        except ConcurrentUseError as exc:
            inner.append(exc)
            raise

    with pytest.raises(ConcurrentUseError, match="re-entered"):
        p.push(reentrant("2]", again))
    assert len(inner) == 1
    for call in (lambda: p.push("3"), p.finish):
        with pytest.raises(ConcurrentUseError, match="missed a chunk"):
            call()


@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=lambda c: c.__module__.rsplit(".", 1)[-1])
def test_a_sink_callback_that_reenters_its_tokenizer(tokenizer) -> None:
    tok = tokenizer()
    seen: list[str] = []

    class Sink:
        def __getattr__(self, name: str) -> Any:
            def callback(*args: Any) -> None:
                seen.append(name)
                if name == "on_key":
                    tok.push("1", self)

            return callback

    with pytest.raises(ConcurrentUseError, match="tokenizer entered"):
        tok.push('{"a": 1}', Sink())
    assert seen == ["on_begin_object", "on_key"]  # the chunk stopped at the callback that raised
    with pytest.raises(ConcurrentUseError, match="missed a chunk"):
        tok.finish(Sink())


def test_a_second_thread_during_a_push_is_refused_and_the_first_completes(make_parser) -> None:
    """Thread A is inside ``push`` (its chunk's ``__str__``/``__len__`` waits); thread B's push is refused."""
    p = make_parser()
    entered, refused = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def hold() -> None:  # runs in thread A, inside its push
        entered.set()
        assert refused.wait(10)

    def thread_a() -> None:
        results["a"] = p.push(reentrant('{"path": "src/a"}', hold))

    def thread_b() -> None:
        assert entered.wait(10)
        try:
            p.push('{"path": "/etc/passwd"}')
        except ConcurrentUseError as exc:
            results["b"] = exc
        finally:
            refused.set()

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert isinstance(results["b"], ConcurrentUseError)
    assert aggregate(results["a"]) == {"path": "src/a"}  # the running call's value is right
    with pytest.raises(ConcurrentUseError, match="missed a chunk"):
        p.finish()


def test_reading_spans_during_another_threads_push_is_refused_without_breaking(make_parser) -> None:
    p = make_parser(flat=True, spans=True)
    entered, read = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def hold() -> None:
        entered.set()
        assert read.wait(10)

    def reader() -> None:
        assert entered.wait(10)
        for name in ("spans", "keys"):
            try:
                getattr(p, name)
            except ConcurrentUseError as exc:
                results[name] = exc
        read.set()

    t = threading.Thread(target=reader)
    t.start()
    fragments = p.push(reentrant('{"a": 1}', hold))
    t.join(20)
    assert set(results) == {"spans", "keys"}
    assert len(p.spans) == len(fragments) and p.keys == [(0, ("a",), (3, 4))]
    assert p.finish() == [] and p.done  # a refused read breaks nothing


@pytest.mark.parametrize("flat", [False, True])
def test_threads_hammering_one_parser_get_a_right_value_or_the_error(make_parser, flat) -> None:
    """Eight threads push ``1,`` into one array as fast as they can, with a tiny switch interval: each
    push returns its fragments or raises ``ConcurrentUseError``; once one raised, every later call
    does; until then the value is exactly the chunks that went in."""
    p = make_parser(flat=flat)
    p.push("[")
    lock = threading.Lock()
    log: list[tuple[str, Any]] = []
    start = threading.Barrier(8)

    def hammer() -> None:
        start.wait()
        for _ in range(300):
            try:
                out = p.push("1,")
            except ConcurrentUseError as exc:
                with lock:
                    log.append(("error", exc))
            else:
                with lock:
                    log.append(("ok", out))

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=hammer) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        sys.setswitchinterval(previous)
    assert len(log) == 8 * 300
    oks = [out for kind, out in log if kind == "ok"]
    errors = [out for kind, out in log if kind == "error"]
    if errors:
        assert all(isinstance(e, ConcurrentUseError) for e in errors)
        with pytest.raises(ConcurrentUseError):
            p.push("1]")
        return
    # the log is in the order the threads logged, not pushed: each push's item carries its index
    pairs = [[f if type(f) is tuple else flatten(f) for f in out] for out in oks]
    assert sorted((value[0], value[1], done[0], done[1]) for value, done in pairs) == [
        ((i,), Scalar(1), (i,), DONE) for i in range(len(oks))]
    p.push("1]")
    p.finish()
    assert p.done
