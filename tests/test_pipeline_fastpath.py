"""The fused pipeline (an adapter's ``chunk`` fast path straight into the call's parser) gives exactly the
items of the generic path (every wire item through ``to_events`` and ``ToolStreamState.feed``).

The generic path is selected by passing the provider's ``to_events`` function instead of its module.
Random streams of every provider with a fast path: random event mixes, parallel calls, random
chunkings, unknown event types, empty deltas, several responses, and random mutations (items
dropped, repeated, swapped), on both backends.
"""

from __future__ import annotations

import importlib
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argstream import ArgumentStreamError, EventBuilder, FinishReason
from argstream.policy import RunMode, TurnCoordinator
from argstream.providers import anthropic, openai_chat, openai_responses
from argstream.stream import StreamFinished, ToolCallArgumentProgress, ToolCallFinished, iter_tool_stream

MODULES = {"anthropic": anthropic, "openai_chat": openai_chat, "openai_responses": openai_responses}


def canon(item: Any) -> Any:
    """An item as comparable data: every field, timestamps left out."""
    if isinstance(item, ToolCallArgumentProgress):
        completed = None if item.completed is None else (item.completed.path, json.dumps(item.completed.value))
        return ("progress", item.tool_call_id, item.tool_name, item.path, repr(item.leaf), completed, item.index,
                repr(item.fragment))
    if isinstance(item, StreamFinished):
        return ("finished", item.reason, [canon_event(e) for e in item.events],
                [canon_event(e) for e in item.incomplete], json.dumps(dict(item.metadata), sort_keys=True, default=str))
    if isinstance(item, ToolCallFinished):
        return ("call", item.id, item.name, json.dumps(item.arguments), error_of(item.error), item.index)
    error = getattr(item, "error", None)
    if isinstance(error, ArgumentStreamError):
        return (type(item).__name__, item.id, item.name, error_of(error), item.index)
    return repr(item)


def canon_event(event: Any) -> Any:
    kind = event.kind
    fields = {k: getattr(kind, k) for k in kind.__dataclass_fields__}
    if "error" in fields:
        fields["error"] = error_of(fields["error"])
    return (type(kind).__name__, json.dumps(fields, sort_keys=True, default=repr),
            json.dumps(dict(event.metadata), sort_keys=True, default=str))


def error_of(error: Any) -> Any:
    return None if error is None else (type(error).__name__, error.msg, error.pos)


def outcome(stream: Any, provider: Any, **options: Any) -> list[Any]:
    """``iter_tool_stream(stream, provider, **options)`` as comparable data, what it raised last."""
    out: list[Any] = []
    try:
        for item in iter_tool_stream(stream, provider, **options):
            out.append(canon(item))
    except Exception as exc:  # noqa: BLE001 - the same error either way
        out.append(("raised", type(exc).__name__, str(exc)))
    return out


def run(items: list[Any], fmt: str, fast: bool, make_parser: Any) -> list[Any]:
    module = MODULES[fmt]
    factory = (lambda: EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, max_depth=64,
                                                                      flat=True)))
    return outcome(items, module if fast else module.to_events, builder_factory=factory)


# -- random streams ------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def split(text: str, rng: random.Random) -> list[str]:
    pieces, i = [], 0
    while i < len(text):
        n = rng.randint(0, 9)  # 0: an empty delta
        pieces.append(text[i:i + n])
        i += n
    return pieces


def argument_text(value: Any, rng: random.Random) -> str:
    text = json.dumps(value)
    roll = rng.random()
    if roll < 0.1:
        return text[: rng.randint(0, len(text))]  # cut off
    if roll < 0.15:
        return text + "}"  # invalid
    return text


def message_text(rng: random.Random) -> str:
    """Some message text: words, with a quote, a backslash or a non-ASCII letter among them."""
    words = ["hi", "there", "a \"q\"", "\\", "ünï", "{", "x" * 12]
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))


def side(rng: random.Random) -> random.Random:
    """A generator of its own for what ``rng``'s draws must not move (reasoning text, added after the
    seeds of these tests were chosen), seeded from ``rng``'s state without drawing from it."""
    return random.Random(hash(rng.getstate()[1][:8]))


def anthropic_stream(responses: list[list[Any]], rng: random.Random) -> list[Any]:
    items: list[Any] = []
    for r, blocks in enumerate(responses):
        items.append({"type": "message_start", "message": {"id": f"msg_{r}", "content": []}})
        for index, args in enumerate(blocks):
            if args is None and side(rng).random() < 0.3:  # extended thinking
                more = side(rng)
                items.append({"type": "content_block_start", "index": index,
                              "content_block": {"type": "thinking", "thinking": ""}})
                for piece in split(message_text(more), more):
                    items.append({"type": "content_block_delta", "index": index,
                                  "delta": {"type": "thinking_delta", "thinking": piece}})
                items.append({"type": "content_block_delta", "index": index,
                              "delta": {"type": "signature_delta", "signature": "c2ln"}})
            elif args is None:
                items.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
                for piece in split(message_text(rng), rng):
                    items.append({"type": "content_block_delta", "index": index,
                                  "delta": {"type": "text_delta", "text": piece}})
            else:
                items.append({"type": "content_block_start", "index": index,
                              "content_block": {"type": "tool_use", "id": f"toolu_{r}_{index}", "name": "tool", "input": {}}})
                for piece in split(argument_text(args, rng), rng):
                    items.append({"type": "content_block_delta", "index": index,
                                  "delta": {"type": "input_json_delta", "partial_json": piece}})
                    if rng.random() < 0.05:
                        items.append({"type": "ping"})
            items.append({"type": "content_block_stop", "index": index})
        items.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
        items.append({"type": "message_stop"})
    return items


def chat_stream(responses: list[list[Any]], rng: random.Random) -> list[Any]:
    items: list[Any] = []
    for r, calls in enumerate(responses):
        rid = f"chatcmpl-{r}"
        queues = []
        for index, args in enumerate(calls):
            text = argument_text(args if args is not None else {}, rng)
            first = {"index": index, "id": f"call_{r}_{index}", "type": "function",
                     "function": {"name": "tool", "arguments": ""}}
            queues.append([first] + [{"index": index, "function": {"arguments": p}} for p in split(text, rng)])
        more = side(rng)
        if more.random() < 0.4:  # reasoning first (DeepSeek and vLLM: reasoning_content; OpenRouter: reasoning)
            key = more.choice(["reasoning_content", "reasoning"])
            for piece in split(message_text(more), more):
                thought: dict[str, Any] = {key: piece}
                if more.random() < 0.3:
                    thought.update(content=None, role=None, tool_calls=None)
                items.append({"id": rid, "object": "chat.completion.chunk",
                              "choices": [{"index": 0, "delta": thought}]})
        if rng.random() < 0.7:  # message text first, as models write before their calls
            for piece in split(message_text(rng), rng):
                content: dict[str, Any] = {"content": piece}
                if rng.random() < 0.3:  # as the SDK's objects dump: the other fields present, None
                    content.update(role=None, refusal=None, tool_calls=None, function_call=None)
                if rng.random() < 0.05:
                    content["refusal"] = "no"
                items.append({"id": rid, "object": "chat.completion.chunk",
                              "choices": [{"index": 0, "delta": content}]})
        while any(queues):
            queue = rng.choice([q for q in queues if q])
            entry = queue.pop(0)
            delta: dict[str, Any] = {"tool_calls": [entry]}
            if rng.random() < 0.05:
                delta["content"] = "x"
            if rng.random() < 0.1:
                delta["role"] = "assistant"
            items.append({"id": rid, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]})
        usage = rng.random() < 0.4  # a usage-only chunk last (stream_options); some servers send no finish_reason
        if not usage or rng.random() < 0.6:
            items.append({"id": rid, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        if usage:
            items.append({"id": rid, "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 5}})
    return items


def responses_stream(responses: list[list[Any]], rng: random.Random) -> list[Any]:
    items: list[Any] = []
    for r, calls in enumerate(responses):
        items.append({"type": "response.created", "response": {"id": f"resp_{r}"}})
        more = side(rng)
        if more.random() < 0.4:  # a reasoning item first: its summary parts, or its text
            reasoning_id = f"rs_{r}"
            position = len(calls) + 1
            item = {"type": "reasoning", "id": reasoning_id, "summary": []}
            items.append({"type": "response.output_item.added", "output_index": position, "item": item})
            kind = more.choice(["response.reasoning_summary_text.delta", "response.reasoning_text.delta"])
            for part in range(more.randint(1, 2)):
                for piece in split(message_text(more), more):
                    items.append({"type": kind, "item_id": reasoning_id, "output_index": position,
                                  "summary_index": part, "content_index": part, "delta": piece})
            items.append({"type": "response.output_item.done", "output_index": position, "item": item})
        if rng.random() < 0.7:  # a message item first
            message_id = f"msg_{r}"
            items.append({"type": "response.output_item.added", "output_index": len(calls),
                          "item": {"type": "message", "id": message_id, "role": "assistant", "content": []}})
            for piece in split(message_text(rng), rng):
                items.append({"type": "response.output_text.delta", "item_id": message_id,
                              "output_index": len(calls), "content_index": 0, "delta": piece})
            items.append({"type": "response.output_item.done", "output_index": len(calls),
                          "item": {"type": "message", "id": message_id, "role": "assistant", "content": []}})
        for index, args in enumerate(calls):
            text = argument_text(args if args is not None else {}, rng)
            item_id = f"fc_{r}_{index}"
            items.append({"type": "response.output_item.added", "output_index": index,
                          "item": {"type": "function_call", "id": item_id, "call_id": f"call_{r}_{index}",
                                   "name": "tool", "arguments": ""}})
            for piece in split(text, rng):
                items.append({"type": "response.function_call_arguments.delta", "item_id": item_id,
                              "output_index": index, "delta": piece})
            if rng.random() < 0.5:
                items.append({"type": "response.function_call_arguments.done", "item_id": item_id,
                              "output_index": index, "arguments": text})
            items.append({"type": "response.output_item.done", "output_index": index,
                          "item": {"type": "function_call", "id": item_id, "call_id": f"call_{r}_{index}",
                                   "name": "tool", "arguments": text}})
        items.append({"type": "response.completed", "response": {"id": f"resp_{r}", "status": "completed",
                                                                 "output": []}})
    return items


STREAMS = {"anthropic": anthropic_stream, "openai_chat": chat_stream, "openai_responses": responses_stream}


def mutate(items: list[Any], rng: random.Random) -> list[Any]:
    items = list(items)
    for _ in range(rng.randint(0, 3)):
        if not items:
            break
        i = rng.randrange(len(items))
        roll = rng.random()
        if roll < 0.3:
            del items[i]
        elif roll < 0.6:
            items.insert(i, items[i])
        elif roll < 0.8 and i + 1 < len(items):
            items[i], items[i + 1] = items[i + 1], items[i]
        else:
            items.insert(i, {"type": "unknown.event", "choices": "nope", "index": [1]})
    return items


#: the calls of one or two responses (``None``: a text or thinking block), for ``STREAMS``
RESPONSES = st.lists(st.lists(st.one_of(st.none(), st.dictionaries(st.text(max_size=4), json_values, max_size=3)),
                              min_size=1, max_size=3), min_size=1, max_size=2)


def random_stream(fmt: str, responses: list[list[Any]], seed: int, mutated: bool) -> list[Any]:
    """The wire items of ``responses`` in format ``fmt``, chunked (and mutated) as ``seed`` draws."""
    rng = random.Random(seed)
    items = STREAMS[fmt](responses, rng)
    return mutate(items, rng) if mutated else items


@pytest.mark.parametrize("fmt", sorted(STREAMS))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(responses=RESPONSES, seed=st.integers(0, 2**32), mutated=st.booleans())
def test_fast_path_gives_the_generic_items(fmt: str, responses: list[list[Any]], seed: int, mutated: bool,
                                           make_parser: Any) -> None:
    items = random_stream(fmt, responses, seed, mutated)
    assert run(items, fmt, True, make_parser) == run(items, fmt, False, make_parser)


#: the SDK's own type of each format's stream items: (package, module of the type, type name)
SDK_TYPES = {"anthropic": ("anthropic", "anthropic.types", "RawMessageStreamEvent"),
             "openai_chat": ("openai", "openai.types.chat", "ChatCompletionChunk"),
             "openai_responses": ("openai", "openai.types.responses", "ResponseStreamEvent")}
#: fields a compatible server or a proxy adds, which the SDK keeps in an object's pydantic extras
EXTRAS = [("stop_reason", None), ("reasoning_content", "so"), ("reasoning", None), ("x_vendor", 1),
          ("provider_specific_fields", {}), ("error", None), ("logprobs", None)]


def with_extras(value: Any, rng: random.Random) -> Any:
    """``value`` (a wire item) with a field of ``EXTRAS`` added to some of its dicts, at any level."""
    if isinstance(value, list):
        return [with_extras(v, rng) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: with_extras(v, rng) for k, v in value.items()}
    if rng.random() < 0.15:
        name, extra = rng.choice(EXTRAS)
        out.setdefault(name, extra)
    return out


def as_sdk_objects(fmt: str, items: list[Any], rng: random.Random) -> list[Any]:
    """The SDK's objects for ``items``, built the way it builds them from a stream's events (its
    ``construct_type``: no validation, unknown fields kept in the extras)."""
    package, module, name = SDK_TYPES[fmt]
    construct_type = importlib.import_module(f"{package}._models").construct_type
    type_ = getattr(importlib.import_module(module), name)
    return [construct_type(type_=type_, value=with_extras(item, rng)) for item in items]


@pytest.mark.parametrize("fmt", sorted(STREAMS))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(responses=RESPONSES, seed=st.integers(0, 2**32), mutated=st.booleans())
def test_fast_path_gives_the_generic_items_on_sdk_objects(fmt: str, responses: list[list[Any]], seed: int,
                                                          mutated: bool, make_parser: Any) -> None:
    """The same on the SDK's own objects, as its stream gives them, with fields added at any level that
    it keeps in their extras: the compiled read of an object's levels (its ``__dict__``, the extras
    read only where they could change the answer) takes what the generic path takes."""
    pytest.importorskip(SDK_TYPES[fmt][0])
    objects = as_sdk_objects(fmt, random_stream(fmt, responses, seed, mutated), random.Random(seed))
    assert run(objects, fmt, True, make_parser) == run(objects, fmt, False, make_parser)


@pytest.mark.parametrize("last", ["usage", "[DONE]"])
@pytest.mark.parametrize("more", [True, False])
def test_a_chunk_after_a_clean_end_is_no_clean_end(last: str, more: bool, make_parser: Any) -> None:
    """A usage-only chunk (or ``[DONE]``) ends a Chat stream that sent no ``finish_reason`` only when
    it is the last item: argument deltas after it, taken by the fast test, make the end a cut-off
    (``FinishReason.ERROR``) on the fast path as on the generic one (found by the provider fuzz target)."""
    def chunk(entry: dict[str, Any]) -> dict[str, Any]:
        return {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]}

    end: Any = {"id": "c1", "choices": [], "usage": {"prompt_tokens": 30}} if last == "usage" else last
    items = [chunk({"index": 0, "id": "call_1", "type": "function", "function": {"name": "w", "arguments": ""}}),
             chunk({"index": 0, "function": {"arguments": '{"a": '}}), end,
             chunk({"index": 0, "function": {"arguments": '"b"'}})]
    if more:
        items.append(chunk({"index": 0, "function": {"arguments": "}"}}))
    fast = run(items, "openai_chat", True, make_parser)
    assert fast == run(items, "openai_chat", False, make_parser)
    assert fast[-1][:2] == ("finished", FinishReason.ERROR)
    assert run(items + [end], "openai_chat", True, make_parser) == run(items + [end], "openai_chat", False,
                                                                         make_parser)


def fed_counting(adapter: Any, items: list[Any]) -> tuple[list[Any], int]:
    """The items of ``items`` through a pipeline on ``adapter``, and how many reached its generic ``feed``."""
    from argstream.stream import StreamPipeline, ToolStreamState

    generic = 0
    original = adapter.feed

    def counting(item: Any) -> Any:
        nonlocal generic
        generic += 1
        return original(item)

    adapter.feed = counting
    pipeline = StreamPipeline(adapter, ToolStreamState())
    out = [x for item in items for x in pipeline.feed(item)] + pipeline.end()
    return out, generic


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_fast_path_is_taken_for_argument_deltas(fmt: str) -> None:
    """Most wire items of a long call never reach the adapter's generic ``feed``."""
    rng = random.Random(7)
    items = STREAMS[fmt]([[{"content": "x" * 3000}]], rng)
    out, generic = fed_counting(MODULES[fmt].adapter(), items)
    assert isinstance(out[-1], StreamFinished)
    deltas = sum(1 for item in items if _argument_delta(item))
    assert deltas > 200 and generic == len(items) - deltas - _fast_texts(items)


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_fast_path_is_taken_for_text_deltas(fmt: str, make_parser: Any) -> None:
    """A message's text deltas, and the reasoning's, never reach the adapter's generic ``feed`` either
    (once the message has its index), and give the items the generic way gives."""
    def reasoned(items: list[Any]) -> bool:
        return any("thinking_delta" in str(item) or "reasoning" in str(item) for item in items)

    shape = [[None, None, None]] if fmt == "anthropic" else [[], []]
    streams = (STREAMS[fmt](shape, random.Random(seed)) for seed in range(1000))
    items = next(s for s in streams if reasoned(s) and sum(1 for item in s if _text_delta(item)) >= 2)
    from argstream.stream import TextDelta

    out, generic = fed_counting(MODULES[fmt].adapter(), items)
    assert generic == len(items) - _fast_texts(items)
    assert [canon(x) for x in out] == run(items, fmt, False, make_parser)
    finished = [x for x in out if isinstance(x, StreamFinished)]
    assert "".join(x.text for x in out if isinstance(x, TextDelta)) == "".join(
        e.kind.text for f in finished for e in f.events if type(e.kind).__name__ == "ChatMessage")


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_an_overriding_chunk_is_what_runs(fmt: str) -> None:
    """The compiled pipeline runs a compiled adapter's test without its Python call, but a subclass's
    own ``chunk`` is what runs when there is one: in the pipeline, and in the coordinator."""
    rng = random.Random(11)
    items = STREAMS[fmt]([[{"content": "x" * 300}]], rng)
    base = type(MODULES[fmt].adapter())
    seen: list[Any] = []

    class Declining(base):  # type: ignore[misc, valid-type]
        def chunk(self, item: Any, *args: Any, **kwargs: Any) -> Any:
            seen.append(item)
            return None

    from argstream.stream import StreamPipeline, ToolStreamState

    pipeline = StreamPipeline(Declining(), ToolStreamState())
    assert pipeline._chunk.__func__ is Declining.chunk
    out = [x for item in items for x in pipeline.feed(item)] + pipeline.end()
    assert seen == list(items) and isinstance(out[-1], StreamFinished)
    assert [canon(x) for x in out] == [canon(x) for x in iter_tool_stream(items, MODULES[fmt].to_events)]
    seen.clear()
    from types import ModuleType

    from argstream.policy import RunRule

    module = ModuleType("declining")  # a user's provider module, whose adapter overrides ``chunk``
    module.adapter = Declining  # type: ignore[attr-defined]
    ran: list[Any] = []
    TurnCoordinator({"*": [RunRule(RunMode.UNATTENDED)]}, execute=lambda c: ran.append(c.arguments),
                    provider=module).run(items)
    assert seen == list(items) and ran == [{"content": "x" * 300}]


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_an_overriding_chunk_that_answers_gives_the_same_items(fmt: str) -> None:
    """A subclass's ``chunk`` that answers as the compiled test does (it calls it) gives the items of the
    stock adapter, whose test the compiled pipeline, raw lane and coordinator run without the tuple the
    Python ``chunk`` returns: on wire dicts, on raw SSE text (its argument deltas read by template), and
    decided by the coordinator."""
    from types import ModuleType

    from argstream.policy import RunRule
    from loopback import sse

    rng = random.Random(18)  # a seed whose two calls arrive whole (argument_text cuts some off)
    items = STREAMS[fmt]([[{"path": "a.py", "content": "x\u00e9\"\n" * 80}], [{"n": [1, 2.5, None]}]], rng)
    module = MODULES[fmt]
    base = type(module.adapter())
    answers: list[Any] = []

    class Answering(base):  # type: ignore[misc, valid-type]
        def chunk(self, item: Any, *args: Any, **kwargs: Any) -> Any:
            hit = super().chunk(item, *args, **kwargs)
            answers.append(hit)
            return hit

    own = ModuleType("answering")  # a user's provider module, whose adapter overrides ``chunk``
    own.adapter = Answering  # type: ignore[attr-defined]
    text = sse(items, event_field=None if fmt == "openai_chat" else "type").decode()
    pieces = [text[i:i + 37] for i in range(0, len(text), 37)]
    for stream in (items, pieces):
        stock = [canon(x) for x in iter_tool_stream(stream, module)]
        answers.clear()
        assert [canon(x) for x in iter_tool_stream(stream, own)] == stock
        hits = [hit for hit in answers if hit is not None]
        assert len(hits) > 100 and all(type(hit) is tuple and len(hit) == 2 for hit in hits)
        assert [x[0] for x in stock].count("finished") == 2
    for provider in (module, own):
        ran: list[Any] = []
        TurnCoordinator({"*": [RunRule(RunMode.UNATTENDED)]}, execute=lambda c: ran.append(c.arguments),
                        provider=provider).run(items)
        assert ran == [{"path": "a.py", "content": "x\u00e9\"\n" * 80}, {"n": [1, 2.5, None]}]


def _argument_delta(item: dict) -> bool:
    """A non-empty argument delta of a call already started (what every fast path takes)."""
    if item.get("type") == "content_block_delta":
        return bool(item["delta"].get("partial_json"))
    if item.get("type") == "response.function_call_arguments.delta":
        return bool(item["delta"])
    if "choices" in item and item["choices"][0].get("finish_reason") is None:
        delta = item["choices"][0]["delta"]
        if not delta.get("tool_calls"):
            return False
        entry = delta["tool_calls"][0]
        return "id" not in entry and not delta.get("content") and bool(entry["function"]["arguments"])
    return False


def _fast_texts(items: list[dict]) -> int:
    """How many of ``items`` the fast text tests take: every non-empty message and reasoning text delta,
    but a Chat choice's first content and first reasoning chunk (which give them their indexes) and a
    Responses summary part's first delta (a new part is the general way's)."""
    taken, chat_seen, summaries = 0, set(), {}
    for item in items:
        kind = item.get("type")
        if kind == "response.created" or kind == "message_start":
            summaries.clear()
        if kind == "content_block_delta":
            taken += bool(item["delta"].get("text") or item["delta"].get("thinking"))
        elif kind in ("response.output_text.delta", "response.reasoning_text.delta"):
            taken += bool(item["delta"])
        elif kind == "response.reasoning_summary_text.delta":
            taken += bool(item["delta"]) and summaries.get(item["item_id"]) == item["summary_index"]
            if item["delta"]:
                summaries[item["item_id"]] = item["summary_index"]
        elif "choices" in item and item["choices"] and item["choices"][0].get("finish_reason") is None:
            delta = item["choices"][0]["delta"]
            if delta.get("tool_calls") is not None or delta.get("refusal") is not None:
                continue
            for key, field in (("content", "content"), ("reasoning", "reasoning_content"), ("reasoning", "reasoning")):
                if delta.get(field):
                    taken += (item["id"], key) in chat_seen
                    chat_seen.add((item["id"], key))
                    break
    return taken


def _text_delta(item: dict) -> bool:
    """A non-empty message text delta (what the fast text tests take, once the message has its index)."""
    if item.get("type") == "content_block_delta":
        return bool(item["delta"].get("text"))
    if item.get("type") == "response.output_text.delta":
        return bool(item["delta"])
    if "choices" in item and item["choices"] and item["choices"][0].get("finish_reason") is None:
        delta = item["choices"][0]["delta"]
        return bool(delta.get("content")) and delta.get("tool_calls") is None and delta.get("refusal") is None
    return False


def test_coordinator_fed_the_wire_items_decides_as_when_fed_events(make_parser: Any) -> None:
    rng = random.Random(3)
    items = anthropic_stream([[{"path": "src/a", "content": "y" * 500}, {"path": "/etc/x"}]], rng)
    from argstream.policy import RunRule
    from argstream.policy.matchers import PrefixMatcher
    from argstream.policy.rules import ParamCondition

    rules = [RunRule(RunMode.UNATTENDED, ParamCondition("/path", PrefixMatcher("src/"))), RunRule(RunMode.SKIP)]

    def decided(source: Any) -> list[Any]:
        builder = EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, flat=True))
        ran: list[Any] = []
        result = TurnCoordinator({"tool": rules}, builder=builder, execute=lambda c: ran.append(c.arguments),
                                 provider="anthropic").run(source)
        return [(c.id, c.status, c.decided_at, c.chunks, c.dropped_chunks) for c in result.calls] + [ran]

    assert decided(items) == decided(list(anthropic.to_events(items)))


# -- Gemini and Ollama: their text tests (Python), against the general way -------------------------------

def gemini_stream(rng: random.Random, sdk_names: bool) -> list[Any]:
    """Chunks of text and thought parts, with calls, signatures, finishes and odd shapes among them."""
    rid, cand = ("response_id", "finish_reason") if sdk_names else ("responseId", "finishReason")
    items: list[Any] = []
    for _ in range(rng.randint(1, 12)):
        roll = rng.random()
        part: dict[str, Any] = {"text": rng.choice(["", "hi", " thé", "\\", "x" * 9])}
        if roll < 0.25:
            part["thought"] = True
        elif roll < 0.3:
            part[rng.choice(["thoughtSignature", "thought_signature"])] = rng.choice(["c2ln", "c2ln", ""])
        elif roll < 0.35:
            part = {rng.choice(["functionCall", "functionCall", "function_call"]):
                    {"name": "tool", "args": {"a": rng.randint(0, 9)}}}
        elif roll < 0.38:
            part["text"] = rng.choice([None, 7, ["x"]])
        parts = [part] if rng.random() < 0.9 else [part, {"text": "more"}]
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if rng.random() < 0.05:
            candidate[cand] = "STOP"
        chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-bench"}
        if rng.random() < 0.8:
            chunk[rid] = rng.choice(["r1", "r1", "r2", ""])
        items.append(chunk)
    items.append({"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, cand: "STOP", "index": 0}],
                  rid: "r1"})
    return items


def ollama_stream(rng: random.Random) -> list[Any]:
    items: list[Any] = []
    for _ in range(rng.randint(1, 12)):
        message: dict[str, Any] = {"role": "assistant", "content": rng.choice(["", "hi", " thé", "x" * 9])}
        roll = rng.random()
        if roll < 0.3:
            message["thinking"] = rng.choice(["", "so", " then"])
        elif roll < 0.35:
            message["tool_calls"] = [{"function": {"name": "tool", "arguments": {"a": 1}}}]
        elif roll < 0.38:
            message["content"] = rng.choice([None, 7])
        line: dict[str, Any] = {"model": "m", "message": message, "done": False}
        if rng.random() < 0.9:
            line["created_at"] = "2025-11-26T02:00:00Z"
        if rng.random() < 0.03:
            line = {"error": "boom"}
        items.append(line)
    last: dict[str, Any] = {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": ""},
                            "done": True, "done_reason": "stop"}
    roll = rng.random()
    if roll < 0.3:  # other ends: other reasons, a load response's, none, usage, text or nothing in the message
        last["done_reason"] = rng.choice(["length", "load", "unload", None, 5, "other"])
    elif roll < 0.45:
        last.update(eval_count=7, prompt_eval_count=3, total_duration=rng.choice([9, None, "x"]))
    elif roll < 0.55:
        last["message"] = rng.choice([{"role": "assistant", "content": "bye"}, {}, {"thinking": "hm"}, None])
    elif roll < 0.6:
        last["done"] = rng.choice([1, "yes", False])
    items.append(last)
    return items


@pytest.mark.parametrize("fmt", ["gemini", "gemini-sdk-names", "ollama"])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), mutated=st.booleans())
def test_gemini_and_ollama_text_tests_give_the_generic_items(fmt: str, seed: int, mutated: bool,
                                                            make_parser: Any) -> None:
    from argstream.providers import gemini, ollama

    rng = random.Random(seed)
    items = ollama_stream(rng) if fmt == "ollama" else gemini_stream(rng, fmt.endswith("sdk-names"))
    if mutated:
        items = mutate(items, rng)
    module = ollama if fmt == "ollama" else gemini
    MODULES[fmt] = module
    try:
        assert run(items, fmt, True, make_parser) == run(items, fmt, False, make_parser)
    finally:
        del MODULES[fmt]


@pytest.mark.parametrize("fmt", ["gemini", "ollama"])
def test_gemini_and_ollama_text_parts_skip_the_adapters_feed(fmt: str, make_parser: Any) -> None:
    """Text (and thought) parts take the text test, the stream's first included: the general way runs only
    where one kind of text follows the other (the run before it is flushed) and for the finish."""
    from argstream.providers import gemini, ollama
    from argstream.stream import ReasoningDelta, TextDelta

    if fmt == "gemini":
        items: list[Any] = [
            {"candidates": [{"content": {"parts": [{"text": t, **({"thought": True} if n < 3 else {})}]}, "index": 0}],
             "responseId": "r1"} for n, t in enumerate("abcdefg")]
        items.append({"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}],
                      "responseId": "r1"})
    else:
        items = [{"model": "m", "created_at": "t", "done": False,
                  "message": {"role": "assistant", **({"thinking": t, "content": ""} if n < 3 else {"content": t})}}
                 for n, t in enumerate("abcdefg")]
        items.append({"model": "m", "created_at": "t", "message": {"content": ""}, "done": True, "done_reason": "stop"})
    module = gemini if fmt == "gemini" else ollama
    adapter = module.adapter()
    if fmt == "gemini":
        adapter = adapter.for_item(items[0])  # as pipeline_for has it: the generateContent adapter itself
    out, generic = fed_counting(adapter, items)
    assert [x.text for x in out if type(x) is ReasoningDelta] == ["a", "b", "c"]
    assert [x.text for x in out if type(x) is TextDelta] == list("defg")
    assert generic == 2  # the first text after the thoughts, the finish
    MODULES[fmt] = module
    try:
        assert [canon(x) for x in out] == run(items, fmt, False, make_parser)
    finally:
        del MODULES[fmt]


# -- Gemini and Ollama: their call tests (whole calls), against the general way ---------------------------

TOOLS = {"fs_create_file": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 12},
                                                             "content": {"type": "string"}},
                            "required": ["path"], "additionalProperties": False}}


def whole_arguments(rng: random.Random) -> Any:
    """Arguments as a provider sends them whole: mostly a plain object, sometimes one no JSON text or
    walk can hold as it is (a NaN, a lone surrogate, a key that is no string, deep nesting), or no object."""
    roll = rng.random()
    if roll < 0.75:
        return {"path": rng.choice(["src/a.py", "x" * 20, "", "ünï"]), "content": message_text(rng)}
    if roll < 0.85:
        return {rng.choice(["k", "", "\u00e9"]): rng.choice([None, True, 3, -2.5, [], {}, [1, {"a": "b"}]])}
    if roll < 0.9:
        deep: Any = "x"
        for _ in range(rng.choice([3, 70])):
            deep = {"d": deep}
        return deep
    return rng.choice([float("nan"), {"s": "\ud800"}, {1: "x"}, {"f": float("inf")}, [1, 2], "{\"a\": 1}", None, 7])


def gemini_calls_stream(rng: random.Random) -> list[Any]:
    """Chunks of whole calls (one to three a chunk), among text, with ids repeated, missing or of the wrong
    type, odd names, finishes and several responses."""
    items: list[Any] = []
    for _ in range(rng.randint(1, 8)):
        if rng.random() < 0.3:
            parts: list[Any] = [{"text": message_text(rng), **({"thought": True} if rng.random() < 0.3 else {})}]
        else:
            parts = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                call: dict[str, Any] = {"name": rng.choice(["fs_create_file"] * 6 + ["other", "", None, 5]),
                                        "args": whole_arguments(rng)}
                roll = rng.random()
                if roll < 0.4:
                    call["id"] = rng.choice(["c1", "c1", "c2", "", None, 7])
                elif roll < 0.45:
                    call[rng.choice(["willContinue", "partialArgs"])] = rng.choice([False, True, []])
                part: dict[str, Any] = {"functionCall": call}
                if rng.random() < 0.05:
                    part[rng.choice(["thoughtSignature", "text"])] = "c2ln"
                parts.append(part)
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if rng.random() < 0.3:
            candidate[rng.choice(["finishReason"] * 9 + ["finish_reason"])] = rng.choice(
                ["STOP", "STOP", "MAX_TOKENS", "SAFETY", "OTHER", 5, ""])
        chunk: dict[str, Any] = {"candidates": [candidate]}
        if rng.random() < 0.8:
            chunk[rng.choice(["responseId"] * 9 + ["response_id"])] = rng.choice(["r1", "r1", "r1", "r2", "", 4])
        if rng.random() < 0.3:
            chunk[rng.choice(["usageMetadata"] * 9 + ["usage_metadata"])] = rng.choice(
                [{"promptTokenCount": 3}, {"deep": [[{"x": 1}]]}, 5])
        items.append(chunk)
    return items


def ollama_calls_stream(rng: random.Random) -> list[Any]:
    """Lines of whole calls (one to three a line), among text, with ids repeated, missing or of the wrong
    type, odd names and arguments, ``done`` on the same line or not, and several responses."""
    items: list[Any] = []
    for _ in range(rng.randint(1, 8)):
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        if rng.random() < 0.3:
            message[rng.choice(["content", "thinking"])] = message_text(rng)
        else:
            message["tool_calls"] = [
                {"function": {"name": rng.choice(["fs_create_file", "fs_create_file", "", None, 5]),
                              "arguments": whole_arguments(rng)},
                 **({"id": rng.choice(["c1", "c1", "c2", "", None, 7])} if rng.random() < 0.4 else {})}
                for _ in range(rng.choice([1, 1, 2, 3]))]
            if rng.random() < 0.05:
                message[rng.choice(["content", "thinking"])] = rng.choice(["x", 7, None])
        line: dict[str, Any] = {"model": "m", "message": message, "done": rng.random() < 0.3}
        if line["done"]:
            line["done_reason"] = rng.choice(["stop", "stop", "length", "load", "weird", None, 5])
            line["eval_count"] = rng.choice([3, None, {"x": 1}])
        if rng.random() < 0.8:
            line["created_at"] = rng.choice(["2025-11-26T02:00:00Z", "", None])
        if rng.random() < 0.03:
            line = {"error": "boom"}
        items.append(line)
    return items


def whole_options(choice: str) -> dict[str, Any]:
    return {"": {}, "tools": {"tools": TOOLS}, "text_tool_calls": {"text_tool_calls": "auto", "tools": TOOLS},
            "lenient": {"lenient": True}}[choice]


@pytest.mark.parametrize("fmt", ["gemini", "ollama"])
@pytest.mark.parametrize("options", ["", "tools", "text_tool_calls", "lenient"])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), mutated=st.booleans())
def test_gemini_and_ollama_call_tests_give_the_generic_items(fmt: str, options: str, seed: int, mutated: bool,
                                                             make_parser: Any) -> None:
    """Whole calls through the adapter's ``call_chunk`` give the general way's items and errors, hostile
    ids, names and arguments included, with a schema, calls written in text or the lenient parser."""
    from argstream.providers import gemini, ollama

    rng = random.Random(seed)
    items = ollama_calls_stream(rng) if fmt == "ollama" else gemini_calls_stream(rng)
    if mutated:
        items = mutate(items, rng)
    module = ollama if fmt == "ollama" else gemini
    if options:
        assert outcome(items, module, **whole_options(options)) == outcome(items, module.to_events,
                                                                        **whole_options(options))
        return
    MODULES[fmt] = module
    try:
        assert run(items, fmt, True, make_parser) == run(items, fmt, False, make_parser)
    finally:
        del MODULES[fmt]


def test_whole_calls_skip_the_adapters_feed(make_parser: Any) -> None:
    """A chunk (a line) of whole calls never reaches the adapter's ``feed``, nor does its finish (Ollama:
    the line with ``done`` after them); the text before them is flushed and each call is finished with
    its own id, as the general way has it."""
    from argstream.providers import gemini, ollama
    from argstream.stream import ToolCallStarted

    args = {"path": "src/a.py", "content": "x = 1\n"}
    gem: list[Any] = [
        {"candidates": [{"content": {"parts": [{"text": "I'll write it."}]}}], "responseId": "r1"},
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "fs_create_file", "args": args}},
                                               {"functionCall": {"name": "fs_create_file", "args": args,
                                                                 "id": "mine"}}]},
                         "finishReason": "STOP"}], "responseId": "r1", "usageMetadata": {"totalTokenCount": 9}}]
    oll: list[Any] = [
        {"model": "m", "created_at": "t0", "message": {"content": "I'll write it."}, "done": False},
        {"model": "m", "created_at": "t0", "done": False,
         "message": {"content": "", "tool_calls": [{"function": {"name": "fs_create_file", "arguments": args}},
                                                   {"id": "mine", "function": {"name": "fs_create_file",
                                                                               "arguments": args}}]}},
        {"model": "m", "created_at": "t0", "message": {"content": ""}, "done": True, "done_reason": "stop"}]
    for module, items, first in ((gemini, gem, "r1-call-0"), (ollama, oll, "t0-call-0")):
        adapter = module.adapter()
        if module is gemini:
            adapter = adapter.for_item(items[0])
        adapter.whole_values = True  # as pipeline_for has it
        out, generic = fed_counting(adapter, items)
        assert generic == 0
        assert [(x.id, x.index) for x in out if type(x) is ToolCallStarted] == [(first, 1), ("mine", 2)]
        finished = out[-1]
        assert type(finished) is StreamFinished and finished.reason is FinishReason.TOOL_USE
        assert [e.kind.arguments for e in finished.events[1:]] == [args, args]
        assert [canon(x) for x in out] == outcome(items, module.to_events)


@pytest.mark.parametrize("fmt", ["gemini", "ollama"])
def test_a_repeated_id_among_whole_calls_fails_the_stream_as_the_general_way_does(fmt: str) -> None:
    """Two calls of one response with one id (a model coaxed into reusing an id, so that one result
    answers both): ``ProviderProtocolError`` at that wire item, after ``StreamFinished(ERROR)``, with
    no item of the chunk (line) that holds the second."""
    from argstream.providers import ProviderProtocolError, gemini, ollama

    def chunk(call_id: str) -> dict[str, Any]:
        if fmt == "gemini":
            return {"candidates": [{"content": {"parts": [{"functionCall": {"name": "w", "args": {}, "id": call_id}},
                                                          {"functionCall": {"name": "w", "args": {}, "id": "b"}}]}}]}
        return {"model": "m", "done": False, "message": {"tool_calls": [
            {"id": call_id, "function": {"name": "w", "arguments": {}}},
            {"id": "b", "function": {"name": "w", "arguments": {}}}]}}

    module = gemini if fmt == "gemini" else ollama
    for provider in (module, module.to_events):
        got: list[Any] = []
        with pytest.raises(ProviderProtocolError, match=r"two tool calls of one response have the id 'b'.*wire item 1"):
            for item in iter_tool_stream([chunk("a"), chunk("c")], provider):
                got.append(item)
        assert [type(x).__name__ for x in got][-1] == "StreamFinished" and got[-1].reason is FinishReason.ERROR
        assert sum(type(x).__name__ == "ToolCallFinished" for x in got) == 2


# -- Vertex AI: string pieces of streamed arguments (partialArgs), by the chunk test --------------------------


def vertex_piece(path: Any, value: Any, more: Any, rng: random.Random) -> dict[str, Any]:
    """One ``partialArgs`` entry, now and then in the SDK's snake_case names or of another kind."""
    snake = rng.random() < 0.05
    piece: dict[str, Any] = {"json_path" if snake else "jsonPath": path}
    roll = rng.random()
    if roll < 0.9:
        piece["string_value" if snake else "stringValue"] = value
    elif roll < 0.94:
        piece["numberValue"] = rng.choice([3, -2.5, 1e300] * 5 + ["7", float("nan")])
    elif roll < 0.97:
        piece["boolValue"] = rng.choice([True, False] * 5 + ["yes"])
    else:
        piece["nullValue"] = None
    if more is not None:
        piece["will_continue" if snake else "willContinue"] = more
    return piece


def vertex_stream(rng: random.Random) -> list[Any]:
    """Chunks of calls whose arguments stream as Vertex ``partialArgs``: strings continued over many
    chunks (what the chunk test takes), their closing pieces, values at new paths, paths that go back
    (the merged fallback), two pieces a chunk, signatures, names and text in the middle of a call,
    terminators or none, finishes, ids and hostile shapes and types."""
    items: list[Any] = []
    response = rng.choice(["r1", "r1", None])

    def chunk(call: Any = None, finish: Any = None, part: Any = None) -> dict[str, Any]:
        if part is None:
            part = {"functionCall": call}
            if rng.random() < 0.04:
                part[rng.choice(["thoughtSignature", "text"])] = "c2ln"
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}}
        if finish is not None:
            candidate[rng.choice(["finishReason"] * 9 + ["finish_reason"])] = finish
        out: dict[str, Any] = {"candidates": [candidate], "usageMetadata": {"trafficType": "ON_DEMAND"}}
        if response is not None and rng.random() < 0.95:
            out[rng.choice(["responseId"] * 19 + ["response_id"])] = response
        return out

    paths = ["$.content"] * 4 + ["$['content']", "$.path", "$.path", "$.a.b", "$.list[0]", "$.a.c"]
    hostile = ["$.list[3]", "$", "content", 7, "$.a", "$..content", "$.content[0]", "$['content", "$.a[99999999]",
               "$." + ".".join(["d"] * 80)]
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.2:
            items.append(chunk(part={"text": message_text(rng)}))
        start: dict[str, Any] = {"name": rng.choice(["fs_create_file"] * 30 + ["", "other", "other"]),
                                 "willContinue": True}
        if rng.random() < 0.2:
            start["id"] = rng.choice(["c1", "c1", "c2", ""] * 5 + [5])
        items.append(chunk(start))
        for _ in range(rng.randint(0, 4)):
            path = rng.choice(paths if rng.random() < 0.95 else hostile)
            n = rng.randint(1, 9)
            for k in range(n):
                value: Any = rng.choice(["ab", "é\"\\", "\n", "", "x" * 5, "\ud800", "🎉"])
                more: Any = True if k < n - 1 or rng.random() < 0.4 else rng.choice([None, False])
                roll = rng.random()
                if roll < 0.03:
                    more = rng.choice([1, "true", None])
                elif roll < 0.05:
                    value = rng.choice([5, None, ["x"]])
                call: dict[str, Any] = {"partialArgs": [vertex_piece(path, value, more, rng)], "willContinue": True}
                roll = rng.random()
                if roll < 0.005:
                    call["willContinue"] = rng.choice([1, False, None])
                elif roll < 0.03:
                    call["name"] = rng.choice(["other", "fs_create_file"])
                elif roll < 0.07:
                    call["partialArgs"].append(vertex_piece(rng.choice(paths), "z", True, rng))
                elif roll < 0.08:
                    call = {"partial_args": call["partialArgs"], "will_continue": True}
                elif roll < 0.1:
                    call["partialArgs"][0][rng.choice(["jsonPath", "extra"])] = rng.choice(["$.other", 5, "$.content"])
                items.append(chunk(call))
            if more is True and rng.random() < 0.7:
                items.append(chunk({"partialArgs": [{"jsonPath": path, "stringValue": ""}], "willContinue": True}))
        if rng.random() < 0.05:
            items.append(chunk(part={"text": message_text(rng)}))  # the call cut off
        if rng.random() < 0.8:
            items.append(chunk(rng.choice([{}, {}, {"willContinue": False}])))
    if rng.random() < 0.8:
        items.append(chunk({}, finish=rng.choice(["STOP", "STOP", "MAX_TOKENS", "SAFETY", ""])))
    return items


def raw_sse(items: list[Any], rng: random.Random, faults: bool) -> list[str]:
    """``items`` as Gemini's SSE (CRLF line ends), cut into pieces of random sizes; with ``faults``,
    other line ends among them (an LF, a lone CR, a CR in an event's JSON), which the compiled lane
    must leave to the decoder."""
    ends = ["\r\n\r\n"] * 20 + ["\r\n\n", "\n\n", "\n\r\n", "\r\r", "\r\n\r\r\n"] * faults
    lines = [json.dumps(item) for item in items]
    if lines and faults:
        n = rng.randrange(len(lines))
        at = rng.randint(0, len(lines[n]))
        lines[n] = lines[n][:at] + rng.choice(["\r", "\n", "\r\n", " \r "]) + lines[n][at:]
    text = "".join(f"data: {line}{rng.choice(ends)}" for line in lines)
    pieces, at = [], 0
    while at < len(text):
        n = rng.choice([1, 7, 50, 400, 5000])
        pieces.append(text[at:at + n])
        at += n
    return pieces


@pytest.mark.parametrize("options", ["", "tools", "text_tool_calls", "lenient"])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), mutated=st.booleans(), faults=st.booleans())
def test_vertex_string_pieces_by_the_chunk_test_give_the_generic_items(options: str, seed: int, mutated: bool,
                                                                       faults: bool,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamed Vertex arguments through ``GeminiAdapter.chunk`` give the general way's items and errors
    (hostile paths, kinds, flags and shapes, with a schema, calls written in text or the lenient
    parser); so does their raw SSE, read by template (in C, the lane's CRLF events), against the pure
    decoder when its line ends are odd."""
    from argstream.providers import gemini
    from argstream.raw import RawReader

    rng = random.Random(seed)
    items = vertex_stream(rng)
    if mutated:
        items = mutate(items, rng)
    expected = outcome(items, gemini.to_events, **whole_options(options))
    assert outcome(items, gemini, **whole_options(options)) == expected
    pieces = raw_sse(items, rng, faults)
    raw = outcome(pieces, gemini, **whole_options(options))
    with monkeypatch.context() as patch:
        patch.setattr(RawReader, "lane", None)  # every event by the pure decoder
        assert outcome(pieces, gemini, **whole_options(options)) == raw
    if faults:
        return
    if expected and expected[-1][0] == "raised":  # the same items, then an error of the same type
        assert raw[:-1] == expected[:-1] and raw[-1][:2] == expected[-1][:2]
    else:
        assert raw == expected


def test_vertex_string_pieces_skip_the_adapters_feed() -> None:
    """A string's continuing pieces never reach the adapter's ``feed``: its first piece, its closing
    piece, the call's start and end and the finish do."""
    from argstream.providers import gemini

    content = ["def f():\n", "    return \"é\"\n", "🎉", "\\"]

    def chunk(call: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"functionCall": call}]}}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "usageMetadata": {"trafficType": "ON_DEMAND"}, "responseId": "r1"}

    items = [chunk({"name": "fs_create_file", "willContinue": True}),
             chunk({"partialArgs": [{"jsonPath": "$.path", "stringValue": "src/a.py"}], "willContinue": True})]
    items += [chunk({"partialArgs": [{"jsonPath": "$.content", "stringValue": piece, "willContinue": True}],
                     "willContinue": True}) for piece in content]
    items += [chunk({"partialArgs": [{"jsonPath": "$.content", "stringValue": ""}], "willContinue": True}),
              chunk({}), chunk({}, "STOP")]
    adapter = gemini.adapter().for_item(items[0])
    adapter.whole_values = True
    out, generic = fed_counting(adapter, items)
    assert generic == len(items) - (len(content) - 1)  # all but the pieces that continue the open string
    finished = [x for x in out if type(x) is ToolCallFinished]
    assert [x.arguments for x in finished] == [{"path": "src/a.py", "content": "".join(content)}]
    assert [canon(x) for x in out] == outcome(items, gemini.to_events)


@pytest.mark.parametrize("first", [5, [1], 2.5])
def test_a_gemini_stream_whose_first_item_cannot_be_read_fails_at_it(first: Any) -> None:
    """The fused pipeline picks Gemini's adapter from the first item before feeding it (``for_item``); an
    item that cannot be read is left to ``feed``, which fails at wire item 0, as the general way does."""
    from argstream.providers import ProviderProtocolError, gemini

    for provider in (gemini, gemini.to_events):
        items: list[Any] = []
        with pytest.raises(ProviderProtocolError, match=r"wire item 0"):
            for item in iter_tool_stream([first, {"candidates": []}], provider):
                items.append(item)
        assert [type(item) for item in items] == [StreamFinished] and items[0].reason is FinishReason.ERROR


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values, seed=st.integers(0, 2**32), cut=st.booleans())
def test_structured_output_takes_the_text_test(fmt: str, value: Any, seed: int, cut: bool, make_parser: Any) -> None:
    """Structured output (``structured=True``: the message text is JSON) streams through the text test as
    ``StructuredDelta`` items, parsed as it arrives: the generic items, whole or cut off, and its deltas
    past the first never reach the adapter's ``feed``."""
    rng = random.Random(seed)
    text = json.dumps(value)
    if cut:
        text = text[:rng.randint(0, len(text))]
    pieces = [p for p in split(text, rng) if p]
    if fmt == "anthropic":
        items: list[Any] = [{"type": "message_start", "message": {"id": "m1", "content": []}},
                            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}]
        items += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
                  for p in pieces]
        items += [{"type": "content_block_stop", "index": 0},
                  {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"}]
        taken = len(pieces)
    else:
        items = [{"id": "c1", "choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
        items.append({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        taken = max(len(pieces) - 1, 0)
    module = MODULES[fmt]
    options = {"structured": True}

    from loopback import sse

    raw = sse(items, event_field=None if fmt == "openai_chat" else "type").decode()
    generic = outcome(items, module.to_events, provider_options=options)
    assert outcome(items, module, provider_options=options) == generic
    chunks = [raw[i:i + 29] for i in range(0, len(raw), 29)]
    assert outcome(chunks, module, provider_options=options) == generic  # read by template
    out, generic = fed_counting(module.adapter(**options), items)
    assert generic == len(items) - taken
    assert "".join(x.chunk for x in out if type(x).__name__ == "StructuredDelta") == text



def test_a_builder_that_overrides_handle_part_sees_every_text_part() -> None:
    """A ``builder_factory`` whose builder overrides ``handle_part`` (to redact or log text, say) is given
    every message part, as before the text tests: they are off for it, and the items are the same."""
    from argstream.events import Message

    seen: list[str] = []

    class Watching(EventBuilder):
        __slots__ = ()

        def handle_part(self, index: int, part: Any, metadata: Any = {}) -> Any:  # noqa: B006 - as the base
            if type(part) is Message:
                seen.append(part.text)
            return super().handle_part(index, part, metadata)

    items = anthropic_stream([[None]], random.Random(3))
    texts = [item["delta"]["text"] for item in items if item.get("type") == "content_block_delta"]
    assert len([t for t in texts if t]) >= 2
    watched = [canon(x) for x in iter_tool_stream(items, anthropic, builder_factory=Watching)]
    assert seen == [t for t in texts if t]
    assert watched == [canon(x) for x in iter_tool_stream(items, anthropic)]
