"""The recorded OpenAI Responses and Gemini streams (read in place from ``RECORDINGS``) through the adapters.

Each line is fed as a decoded wire dict, and again as the SDK's own object, through ``to_events``
and an ``EventBuilder``; the tool calls must match ``expected.json`` (names, ids, final
arguments; custom tools as ``{"input": text}``), each response must end with one ``Finished``,
and argument text must stream as it arrived, never twice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from argstream.builder import EventBuilder
from argstream.events import (
    ArgumentChunk,
    ConversationEvent,
    Finished,
    FinishReason,
    Flush,
    Part,
    ToolCall,
    ToolCallRequest,
)
from argstream.providers import gemini, openai_responses

from conftest import RECORDINGS

EXPECTED_FILE = RECORDINGS / "expected.json"
EXPECTED: dict[str, Any] = json.loads(EXPECTED_FILE.read_text(encoding="utf-8")) if EXPECTED_FILE.exists() else {}
FILES = sorted(k for k in EXPECTED if k.startswith(("openai_responses/", "gemini/")))

pytestmark = pytest.mark.skipif(not FILES, reason=f"no recordings at {RECORDINGS}")


def lines(key: str) -> list[dict]:
    text = (RECORDINGS / key).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _openai_objects(items: list[dict]) -> list[Any]:
    construct = pytest.importorskip("openai._models").construct_type
    from openai.types.responses import ResponseStreamEvent

    return [construct(type_=ResponseStreamEvent, value=item) for item in items]


def _gemini_objects(items: list[dict]) -> list[Any]:
    types = pytest.importorskip("google.genai.types")
    if "event_type" in items[0]:
        pydantic = pytest.importorskip("pydantic")
        try:
            from google.genai._gaos.types.interactions import InteractionSSEEvent
        except ImportError:
            pytest.skip("this google-genai has no Interactions event types")
        adapter = pydantic.TypeAdapter(InteractionSSEEvent)
        return [adapter.validate_python(item) for item in items]
    # the constructor generate_content_stream uses for each chunk (it drops fields this SDK lacks)
    return [types.GenerateContentResponse._from_response(response=item, kwargs={}) for item in items]


def adapter_for(key: str) -> tuple[Callable, Callable[[list[dict]], list[Any]]]:
    if key.startswith("gemini/"):
        return gemini.to_events, _gemini_objects
    return openai_responses.to_events, _openai_objects


def run(key: str, form: str) -> list[Any]:
    to_events, objects = adapter_for(key)
    items = lines(key)
    return list(to_events(items if form == "dicts" else objects(items)))


class Outcome:
    """What the builder made of one recording's events."""

    def __init__(self, events: list[Any]) -> None:
        builder = EventBuilder()
        # (call, flush metadata, response number, its ArgumentChunk texts)
        self.calls: list[tuple[ToolCallRequest, dict, int, list[str]]] = []
        self.finished: list[Finished] = []
        chunks: dict[int, list[str]] = {}
        for event in events:
            result = builder.handle(event)
            if isinstance(event, Finished):
                assert result == [], f"unflushed buffers at {event}: {result}"
                self.finished.append(event)
            elif isinstance(event, Part) and isinstance(event.part, ToolCall) and isinstance(event.part.part, ArgumentChunk):
                chunks.setdefault(event.index, []).append(event.part.part.text)
            elif isinstance(event, Flush) and isinstance(result, ConversationEvent) and isinstance(result.kind, ToolCallRequest):
                self.calls.append((result.kind, dict(result.metadata), len(self.finished), chunks.pop(event.index, [])))
        assert isinstance(events[-1], Finished)


@pytest.mark.parametrize("form", ["dicts", "sdk"])
@pytest.mark.parametrize("key", FILES)
def test_recording_reproduces_expected_tool_calls(key: str, form: str) -> None:
    expected = EXPECTED[key]["tool_calls"]
    outcome = Outcome(run(key, form))
    assert len(outcome.calls) == len(expected)
    for (call, meta, response, _), want in zip(outcome.calls, expected):
        assert call.error is None, call.error
        assert call.name == want["name"]
        if want["id"] is not None:
            assert call.id == want["id"]
        else:
            assert meta.get("id_generated") is True and call.id
        if want.get("kind") == "custom_tool_call":
            assert call.arguments == {"input": want["input"]}
            assert meta["kind"] == "custom_tool_call"
        else:
            assert call.arguments == want["arguments"]
        if "item_id" in want:
            assert meta["item_id"] == want["item_id"]
        assert response == want.get("response", 0)  # the call belongs to the right response
    assert len({call.id for call, *_ in outcome.calls}) == len(outcome.calls)


@pytest.mark.parametrize("key", FILES)
def test_recording_finishes_once_per_response(key: str) -> None:
    items = lines(key)
    outcome = Outcome(run(key, "dicts"))
    if key.startswith("openai_responses/"):
        assert len(outcome.finished) == sum(item["type"] == "response.created" for item in items)
    else:
        assert len(outcome.finished) == 1
    with_calls = {response for _, _, response, _ in outcome.calls}
    for number, finished in enumerate(outcome.finished):
        want = FinishReason.TOOL_USE if number in with_calls else FinishReason.COMPLETED
        assert finished.reason is want, (number, finished)


@pytest.mark.parametrize("key", FILES)
def test_recording_argument_text_streams_once(key: str) -> None:
    expected = EXPECTED[key]["tool_calls"]
    interactions = EXPECTED[key].get("api") == "interactions"
    for (call, _, _, pieces), want in zip(Outcome(run(key, "dicts")).calls, expected):
        deltas = want.get("deltas")
        if want.get("kind") == "custom_tool_call":
            assert len(pieces) == deltas + 2  # '{"input":"', one per delta, '"}'
        elif deltas is not None and not interactions:
            assert len(pieces) == max(deltas, 1)  # one per delta; arguments given only whole: exactly once
        elif want.get("streamed") == "partialArgs":
            assert len(pieces) >= want["partial_args"]  # JSON text written as the pieces arrive
        elif interactions:
            assert len(pieces) == deltas
        else:
            assert len(pieces) == (1 if want["arguments"] else 0)  # args given whole: serialised once
        if pieces:
            assert json.loads("".join(pieces)) == call.arguments


def _without_usage(events: list[Any]) -> list[Any]:
    """``usage`` is passed on in the provider's shape, which differs between SDK objects and wire dicts."""
    return [Finished(e.reason, {k: v for k, v in e.metadata.items() if k != "usage"}) if isinstance(e, Finished)
            else e for e in events]


@pytest.mark.parametrize("key", FILES)
def test_sdk_objects_give_the_same_events_as_dicts(key: str) -> None:
    assert _without_usage(run(key, "sdk")) == _without_usage(run(key, "dicts"))


def test_every_recording_file_is_covered() -> None:
    on_disk = {f"{d.name}/{f.name}" for d in (RECORDINGS / "openai_responses", RECORDINGS / "gemini")
               for f in Path(d).glob("*.chunks.txt")}
    assert on_disk == set(FILES)
