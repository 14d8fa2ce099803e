"""Per argument delta: the provider pipeline against the parser, the ``json.loads`` floor and the SDKs (issue 17).

Workloads (``wire_data.py``): one ``fs_create_file`` call of 2 KB, 20 KB or 200 KB of argument JSON,
streamed in token-sized deltas (2-12 characters, seeded) by Anthropic, OpenAI Chat Completions and
Responses; Gemini and Ollama send the same arguments whole (secondary cases). Every figure is for the
whole stream; the report divides it by the stream's argument deltas (``extra_info["deltas"]``).

Cases (``impl``), all through public API:

``parser``
    ``IncrementalArgParser(flat=True, catch_duplicate_keys=True)``: ``push`` every delta, ``finish``.
``json.loads-floor``
    ``json.loads`` of each event's JSON (an SSE ``data:`` line, an NDJSON line) and nothing else: the
    floor any Python consumer of the event stream pays.
``raw-sse`` / ``raw-sse-bytes``
    argstream from the raw SSE / NDJSON text (``str`` / UTF-8 ``bytes``), one chunk per event as a live
    stream arrives: :func:`raw_tool_stream` (the one place that spells the raw path).
``wire-dicts-floor`` / ``sdk-objects-floor``
    the plainest reader of the same decoded wire dicts / replayed SDK objects: each event's argument
    text read along the provider's path with plain lookups (no check of ids, finish, other content or
    calls; no items) and pushed into the parser. Not a correct consumer, a lower bound for one: what
    reading the events' own objects costs beside the parser, which ``wire-dicts`` and ``sdk-objects``
    pay too (a Chat chunk is seven levels deep, an Anthropic delta two).
``wire-dicts`` / ``wire-dicts+tools`` / ``async-wire-dicts``
    ``iter_tool_stream`` on the decoded wire dicts; with ``tools=`` (``maxLength`` and ``pattern`` on
    ``path``); ``aiter_tool_stream`` on an async generator of them.
``async-raw-sse``
    ``aiter_tool_stream`` on an async generator of the raw SSE / NDJSON text chunks (one per event).
``async-floor``
    the async protocol alone: the same async generator of wire dicts through one async generator that
    passes each on, to an ``async for`` (no work); ``async-wire-dicts`` minus this is argstream's part.
``coordinator`` / ``coordinator-async``
    ``TurnCoordinator`` with a policy that decides at ``path`` (unattended under ``src/``), ``run`` /
    ``arun`` over the wire dicts.
``sdk-raw`` / ``sdk-raw+argstream``
    the official SDK (``anthropic`` / ``openai``) streaming the same SSE bytes over
    ``httpx.MockTransport`` (no socket): iterating its raw stream alone, and ``iter_tool_stream`` on it.
    Their difference is argstream's cost on top of the SDK.
``sdk-objects`` / ``sdk-objects-iterate``
    the SDK's objects decoded once and replayed from a list: ``iter_tool_stream`` on them, and a bare
    loop over them (the same difference without the SDK's own variance).
``sdk-accumulate``
    the SDK helper's per-event accumulation on the replayed objects (Anthropic ``accumulate_event`` +
    ``build_events``, which re-parse the arguments with jiter per delta; OpenAI
    ``ChatCompletionStreamState`` / ``ResponseStreamState``).
``sdk-helper`` / ``argstream-e2e``
    end to end over ``httpx.MockTransport``, raw SSE bytes to final arguments: the SDK helper
    (``messages.stream`` to the final message, ``chat.completions.stream`` to the final completion,
    ``responses.stream`` to the final response), and argstream reading the HTTP body itself.

Every case is verified outside the timed call: its final arguments equal the call's.

    python -m pytest benchmarks/bench_events.py --benchmark-timer=time.process_time -k 20K
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import importlib
import inspect
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import environment  # noqa: F401 - first: puts src/ on the path when argstream is not installed
import pytest
from wire_data import DELTA_PROVIDERS, POLICY_TOML, PROVIDERS, SIZES, TOOLS, WireStream, wire_stream

from argstream import (
    FragmentAggregator,
    IncrementalArgParser,
    ToolCallFinished,
    aiter_tool_stream,
    iter_tool_stream,
    nest,
)
from argstream.policy import RunMode, TurnCoordinator, load_policies
from argstream.providers.wire import iter_wire

# ---- THE SWITCH for raw input (issue 17, "Raw bytes in") -----------------------------------------------
#: False: ``iter_tool_stream`` takes wire items, so raw text goes through ``iter_wire`` first (bytes are
#: decoded incrementally before). True, once the redesign lands: ``iter_tool_stream`` takes the raw SSE /
#: NDJSON ``str`` or ``bytes`` chunks itself. Every raw case (``raw-sse``, ``raw-sse-bytes``,
#: ``argstream-e2e``) goes through :func:`raw_tool_stream`.
RAW_INPUT_DIRECT = True


def raw_tool_stream(chunks: Iterable[Any], provider: str, **options: Any) -> Iterator[Any]:
    """``iter_tool_stream`` over raw SSE / NDJSON chunks (``str``, or ``bytes`` holding UTF-8)."""
    if RAW_INPUT_DIRECT:
        return iter_tool_stream(chunks, provider, **options)
    return iter_tool_stream(iter_wire(_text(chunks)), provider, **options)


def _text(chunks: Iterable[Any]) -> Iterator[str]:
    iterator = iter(chunks)
    for first in iterator:
        if isinstance(first, str):
            yield first
            yield from iterator
            return
        decode = codecs.getincrementaldecoder("utf-8")().decode
        yield decode(first)
        for chunk in iterator:
            yield decode(chunk)
        yield decode(b"", True)


# The coordinator takes the provider stream itself once the redesign lands (``provider=``); before it,
# the provider's events (``argstream.providers.<name>.to_events``). Told from its signature.
COORDINATOR_TAKES_STREAM = "provider" in inspect.signature(TurnCoordinator).parameters

#: Cases by kind of provider. The SDK cases exist for the three delta providers only.
WIRE_IMPLS = ("parser", "json.loads-floor", "raw-sse", "raw-sse-bytes", "wire-dicts", "wire-dicts+tools",
              "async-wire-dicts", "async-floor", "async-raw-sse", "coordinator", "coordinator-async")
SDK_IMPLS = ("sdk-raw", "sdk-raw+argstream", "sdk-objects", "sdk-objects-iterate", "sdk-objects-floor",
             "sdk-accumulate", "sdk-helper", "argstream-e2e")
#: The plainest readers exist for the delta providers (Gemini and Ollama send their arguments whole).
FLOOR_IMPLS = ("wire-dicts-floor",)
SDK_PACKAGE = {"anthropic": "anthropic", "openai_chat": "openai", "openai_responses": "openai"}
BASE_URL = {"anthropic": "http://bench.invalid", "openai_chat": "http://bench.invalid/v1",
            "openai_responses": "http://bench.invalid/v1"}
MESSAGES = [{"role": "user", "content": "create the file"}]
#: A case whose one run takes longer than this many seconds is timed for a few rounds only.
SLOW_SECONDS = 0.5


def impls(provider: str) -> tuple[str, ...]:
    return WIRE_IMPLS + (FLOOR_IMPLS + SDK_IMPLS if provider in DELTA_PROVIDERS else ())


# -- the timed functions: each returns the final arguments (or a cheap count) -------------------------


def final_arguments(items: Iterable[Any]) -> Any:
    """The arguments of the last finished call: the loop a user writes."""
    out = None
    for item in items:
        if type(item) is ToolCallFinished:
            out = item.arguments
    return out


def parser_alone(pieces: tuple[str, ...]) -> int:
    parser = IncrementalArgParser(flat=True, catch_duplicate_keys=True)
    push = parser.push
    n = 0
    for piece in pieces:
        n += len(push(piece))
    return n + len(parser.finish())


def parser_value(pieces: tuple[str, ...]) -> Any:
    """The value the parser's flat fragments build (verification, untimed)."""
    parser = IncrementalArgParser(flat=True, catch_duplicate_keys=True)
    agg = FragmentAggregator()
    for piece in pieces:
        for path, leaf in parser.push(piece):
            agg.push(nest(path, leaf))
    for path, leaf in parser.finish():
        agg.push(nest(path, leaf))
    return agg.value


def _anthropic_text(event: dict) -> Any:
    if event.get("type") == "content_block_delta":
        delta = event["delta"]
        if delta.get("type") == "input_json_delta":
            return delta["partial_json"]
    return None


def _chat_text(chunk: dict) -> Any:
    choices = chunk.get("choices")
    if choices:
        calls = choices[0]["delta"].get("tool_calls")
        if calls:
            return calls[0]["function"].get("arguments")
    return None


def _responses_text(event: dict) -> Any:
    return event["delta"] if event.get("type") == "response.function_call_arguments.delta" else None


def _anthropic_sdk_text(event: Any) -> Any:
    if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
        return event.delta.partial_json
    return None


def _chat_sdk_text(chunk: Any) -> Any:
    choices = chunk.choices
    if choices:
        calls = choices[0].delta.tool_calls
        if calls:
            function = calls[0].function
            return function.arguments if function is not None else None
    return None


def _responses_sdk_text(event: Any) -> Any:
    return event.delta if event.type == "response.function_call_arguments.delta" else None


#: each provider's argument text of an event, read the plainest way: (wire dicts, SDK objects)
PLAIN_TEXT: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "anthropic": (_anthropic_text, _anthropic_sdk_text),
    "openai_chat": (_chat_text, _chat_sdk_text),
    "openai_responses": (_responses_text, _responses_sdk_text),
}


def plain_reader(text_of: Callable[[Any], Any], aggregate: bool = False) -> Callable[[Iterable[Any]], Any]:
    """The plainest reader (``wire-dicts-floor``, ``sdk-objects-floor``): each event's argument text, read
    by ``text_of``, pushed into the parser; the fragment count (``aggregate``: the value, to verify)."""
    def read(events: Iterable[Any]) -> Any:
        parser = IncrementalArgParser(flat=True, catch_duplicate_keys=True)
        push = parser.push
        fragments = []
        n = 0
        for event in events:
            text = text_of(event)
            if text:
                got = push(text)
                n += len(got)
                if aggregate:
                    fragments += got
        if not aggregate:
            return n + len(parser.finish())
        agg = FragmentAggregator()
        for path, leaf in fragments + parser.finish():
            agg.push(nest(path, leaf))
        return agg.value

    return read


def loads_floor(lines: tuple[str, ...]) -> Any:
    loads = json.loads
    value = None
    for line in lines:
        value = loads(line)
    return value


@functools.cache
def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.new_event_loop()


async def _agen(items: Iterable[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


async def _stage(items: Iterable[Any]) -> AsyncIterator[Any]:
    async for item in _agen(items):
        yield item


def async_floor(items: tuple[Any, ...]) -> int:
    """The async protocol alone: ``_agen`` through one async generator stage that passes each item on, to
    an ``async for`` (what any async stage between a source and its consumer costs, doing nothing)."""
    async def main() -> int:
        n = 0
        async for _ in _stage(items):
            n += 1
        return n

    return _loop().run_until_complete(main())


def async_final_arguments(items: tuple[Any, ...], provider: str) -> Any:
    """``aiter_tool_stream`` on an async generator of ``items`` (wire dicts, or raw SSE / NDJSON chunks
    as ``httpx``'s ``aiter_text`` gives them), to the final arguments."""
    async def main() -> Any:
        out = None
        async for item in aiter_tool_stream(_agen(items), provider):
            if type(item) is ToolCallFinished:
                out = item.arguments
        return out

    return _loop().run_until_complete(main())


@functools.cache
def policies() -> Any:
    return load_policies(POLICY_TOML)


def _coordinator_input(items: tuple[Any, ...], provider: str) -> tuple[TurnCoordinator, Iterable[Any]]:
    if COORDINATOR_TAKES_STREAM:
        return TurnCoordinator(policies(), provider=provider), items
    module = importlib.import_module(f"argstream.providers.{provider}")
    return TurnCoordinator(policies()), module.to_events(items)


def coordinator_run(items: tuple[Any, ...], provider: str) -> Any:
    co, source = _coordinator_input(items, provider)
    return co.run(source)


def coordinator_arun(items: tuple[Any, ...], provider: str) -> Any:
    if COORDINATOR_TAKES_STREAM:
        co, source = TurnCoordinator(policies(), provider=provider), _agen(items)
    else:
        module = importlib.import_module(f"argstream.providers.{provider}")
        co, source = TurnCoordinator(policies()), module.ato_events(_agen(items))
    return _loop().run_until_complete(co.arun(source))


def _turn_arguments(result: Any) -> Any:
    """The one call's arguments, checked to be decided unattended at ``path`` (verification)."""
    (call,) = result.calls
    assert call.mode is RunMode.UNATTENDED, call.mode
    return call.arguments


# -- the SDKs over httpx.MockTransport ------------------------------------------------------------------


def sdk_skip(provider: str) -> str | None:
    """Why the SDK cases of ``provider`` cannot run here (a peer not installed), or None."""
    package = SDK_PACKAGE.get(provider)
    if package is None:
        return f"no SDK case for {provider}"
    try:
        importlib.import_module(package)
    except ImportError:
        return f"{package} not installed"
    return None


def _httpx_for(module: Any) -> Any:
    """The httpx flavour an SDK's client takes (``httpx2`` in recent anthropic / openai, else ``httpx``)."""
    base = importlib.import_module(f"{module.__name__}._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def _handler(httpx: Any, stream: WireStream) -> Callable[[Any], Any]:
    chunks = stream.byte_chunks

    def handler(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": stream.content_type}, content=iter(chunks))

    return handler


class SDK:
    """One provider's SDK client, streaming ``stream``'s bytes from a ``MockTransport``."""

    def __init__(self, stream: WireStream) -> None:
        self.stream = stream
        self.provider = stream.provider
        module = importlib.import_module(SDK_PACKAGE[self.provider])
        httpx = _httpx_for(module)
        http_client = httpx.Client(transport=httpx.MockTransport(_handler(httpx, stream)))
        cls = module.Anthropic if self.provider == "anthropic" else module.OpenAI
        self.client = cls(http_client=http_client, base_url=BASE_URL[self.provider], api_key="k", max_retries=0)
        with self.raw() as raw:
            self.objects = tuple(raw)

    def raw(self) -> Any:
        """The SDK's raw stream (a context manager and an iterator of its event objects)."""
        if self.provider == "anthropic":
            return self.client.messages.create(model="bench-model", max_tokens=64_000, messages=MESSAGES,
                                               stream=True)
        if self.provider == "openai_chat":
            return self.client.chat.completions.create(model="bench-model", messages=MESSAGES, stream=True)
        return self.client.responses.create(model="bench-model", input="create the file", stream=True)

    def helper(self) -> Any:
        """The SDK's stream helper, raw SSE to its final message / completion / response."""
        client = self.client
        if self.provider == "anthropic":
            with client.messages.stream(model="bench-model", max_tokens=64_000, messages=MESSAGES) as stream:
                for _ in stream:
                    pass
                return stream.get_final_message().content[0].input
        if self.provider == "openai_chat":
            with client.chat.completions.stream(model="bench-model", messages=MESSAGES) as stream:
                for _ in stream:
                    pass
                return stream.get_final_completion().choices[0].message.tool_calls[0].function.arguments
        with client.responses.stream(model="bench-model", input="create the file") as stream:
            for _ in stream:
                pass
            return stream.get_final_response().output[0].arguments

    def accumulate(self, objects: tuple[Any, ...]) -> Any:
        """The helper's per-event accumulation alone, on replayed objects."""
        if self.provider == "anthropic":
            from anthropic.lib.streaming._messages import accumulate_event, build_events

            snapshot, json_bufs = None, {}
            for event in objects:
                snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
                build_events(event=event, message_snapshot=snapshot)
            return snapshot.content[0].input
        if self.provider == "openai_chat":
            from openai.lib.streaming.chat import ChatCompletionStreamState

            state = ChatCompletionStreamState()
            for chunk in objects:
                for _ in state.handle_chunk(chunk):
                    pass
            return state.get_final_completion().choices[0].message.tool_calls[0].function.arguments
        from openai.lib.streaming.responses._responses import ResponseStreamState

        state = ResponseStreamState(input_tools=[], text_format=None)
        for event in objects:
            for _ in state.handle_event(event):
                pass
        return state._completed_response.output[0].arguments


@functools.cache
def sdk(provider: str, size: str) -> SDK:
    return SDK(wire_stream(provider, size))


@functools.cache
def _e2e_client(provider: str, size: str) -> Any:
    """A plain httpx client (``httpx``, else ``httpx2``) on the same mock transport: what a user without an SDK writes."""
    return http_client(wire_stream(provider, size))


def http_client(stream: WireStream) -> Any:
    """A plain httpx client (``httpx``, else ``httpx2``) on a mock transport that streams ``stream``'s bytes."""
    try:
        import httpx
    except ImportError:
        import httpx2 as httpx
    return httpx.Client(transport=httpx.MockTransport(_handler(httpx, stream)), base_url=BASE_URL[stream.provider])


def argstream_e2e(client: Any, provider: str) -> Any:
    """POST, then argstream on the response body's bytes as they arrive."""
    with client.stream("POST", "/stream", json={"model": "bench-model", "stream": True}) as response:
        return final_arguments(raw_tool_stream(response.iter_bytes(), provider))


def sdk_raw(sdk_: SDK) -> int:
    with sdk_.raw() as raw:
        n = 0
        for _ in raw:
            n += 1
        return n


def sdk_raw_argstream(sdk_: SDK) -> Any:
    with sdk_.raw() as raw:
        return final_arguments(iter_tool_stream(raw, sdk_.provider))


def iterate(objects: tuple[Any, ...]) -> int:
    n = 0
    for _ in objects:
        n += 1
    return n


# -- cases -----------------------------------------------------------------------------------------------

Case = tuple[Callable[[Any], Any], Any, Callable[[Any], None]]


def case_skip(provider: str, size: str, impl: str) -> str | None:
    """Why the case cannot run here (a peer not installed, no such case), or None."""
    if impl not in impls(provider):
        return f"no {impl} case for {provider}"
    if impl in SDK_IMPLS and impl != "argstream-e2e":
        return sdk_skip(provider)
    return None


def event_case(provider: str, size: str, impl: str) -> Case:
    """The timed function, its argument and the check of its result (run untimed)."""
    stream = wire_stream(provider, size)
    expected = stream.arguments

    def equal(result: Any) -> None:
        assert result == expected, "the final arguments differ from the call's"

    def equal_text(result: Any) -> None:
        assert json.loads(result) == expected, "the final arguments differ from the call's"

    def count(n: int) -> Callable[[Any], None]:
        def check(result: Any) -> None:
            assert result == n, f"{result} items, expected {n}"

        return check

    items = stream.items
    if impl == "parser":
        assert parser_value(stream.deltas) == expected
        return parser_alone, stream.deltas, lambda n: None
    if impl == "json.loads-floor":
        assert [json.loads(line) for line in stream.lines] == list(items)
        return loads_floor, stream.lines, lambda value: None
    if impl == "raw-sse":
        return (lambda chunks: final_arguments(raw_tool_stream(chunks, provider))), stream.chunks, equal
    if impl == "raw-sse-bytes":
        return (lambda chunks: final_arguments(raw_tool_stream(chunks, provider))), stream.byte_chunks, equal
    if impl == "wire-dicts":
        return (lambda items: final_arguments(iter_tool_stream(items, provider))), items, equal
    if impl == "wire-dicts-floor":
        assert plain_reader(PLAIN_TEXT[provider][0], aggregate=True)(items) == expected
        return plain_reader(PLAIN_TEXT[provider][0]), items, lambda n: None
    if impl == "wire-dicts+tools":
        def checked(items: tuple[Any, ...]) -> Any:
            out = None
            for item in iter_tool_stream(items, provider, tools=TOOLS):
                if type(item) is ToolCallFinished:
                    assert item.ok
                    out = item.arguments
            return out

        return checked, items, equal
    if impl == "async-wire-dicts":
        return (lambda items: async_final_arguments(items, provider)), items, equal
    if impl == "async-raw-sse":
        return (lambda chunks: async_final_arguments(chunks, provider)), stream.chunks, equal
    if impl == "async-floor":
        return async_floor, items, count(len(items))
    if impl == "coordinator":
        return (lambda items: coordinator_run(items, provider)), items, lambda r: equal(_turn_arguments(r))
    if impl == "coordinator-async":
        return (lambda items: coordinator_arun(items, provider)), items, lambda r: equal(_turn_arguments(r))
    if impl == "argstream-e2e":
        return (lambda client: argstream_e2e(client, provider)), _e2e_client(provider, size), equal
    sdk_ = sdk(provider, size)
    if impl == "sdk-raw":
        return sdk_raw, sdk_, count(len(sdk_.objects))
    if impl == "sdk-raw+argstream":
        return sdk_raw_argstream, sdk_, equal
    if impl == "sdk-objects":
        return (lambda objects: final_arguments(iter_tool_stream(objects, provider))), sdk_.objects, equal
    if impl == "sdk-objects-iterate":
        return iterate, sdk_.objects, count(len(sdk_.objects))
    if impl == "sdk-objects-floor":
        assert plain_reader(PLAIN_TEXT[provider][1], aggregate=True)(sdk_.objects) == expected
        return plain_reader(PLAIN_TEXT[provider][1]), sdk_.objects, lambda n: None
    if impl == "sdk-accumulate":
        return sdk_.accumulate, sdk_.objects, equal if provider == "anthropic" else equal_text
    if impl == "sdk-helper":
        return (lambda s: s.helper()), sdk_, equal if provider == "anthropic" else equal_text
    raise KeyError(impl)


def prepare(provider: str, size: str, impl: str) -> tuple[Callable[[Any], Any], Any, float] | str:
    """The case verified by one untimed run, with that run's CPU time; or why it cannot run."""
    reason = case_skip(provider, size, impl)
    if reason:
        return reason
    fn, arg, verify = event_case(provider, size, impl)
    start = time.process_time()
    result = fn(arg)
    once = time.process_time() - start
    verify(result)
    return fn, arg, once


# -- pytest-benchmark -----------------------------------------------------------------------------------

CASES = [(p, s, i) for s in SIZES for p in PROVIDERS for i in impls(p)]


@pytest.mark.parametrize(("provider", "size", "impl"), CASES, ids=["-".join(c) for c in CASES])
def test_events(benchmark: Any, provider: str, size: str, impl: str) -> None:
    benchmark.group = f"events {provider} {size}"
    stream = wire_stream(provider, size)
    benchmark.extra_info.update(provider=provider, size=size, impl=impl, deltas=stream.n_deltas,
                                events=len(stream.items))
    case = prepare(provider, size, impl)
    if isinstance(case, str):
        pytest.skip(case)
    fn, arg, once = case
    if once > SLOW_SECONDS:  # the SDK helpers at 200 KB: seconds a round
        benchmark.pedantic(fn, args=(arg,), rounds=1 if once > 5 else 3, iterations=1)
    else:
        benchmark(fn, arg)

