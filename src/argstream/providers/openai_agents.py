"""OpenAI Agents SDK streams (``Runner.run_streamed(...).stream_events()``) to argstream events.

Input: the SDK's stream events. ``RawResponsesStreamEvent`` (``type == "raw_response_event"``)
wraps one Responses stream event in ``data``, whatever the agent's model: the SDK converts Chat
Completions models' streams to Responses events too. Those are read by the Responses adapter
(:mod:`argstream.providers.openai_responses`), so the events, indexes and reasons are exactly
its own, one ``Finished`` per model response of the run (each turn of the agent loop).

``AgentUpdatedStreamEvent`` and ``RunItemStreamEvent`` (the run items the SDK builds from a
finished response: ``tool_called``, ``tool_output``, ``message_output_created``, handoffs,
approvals) are ignored: they repeat what the raw events already streamed, after the fact.
Nothing of the Agents SDK is imported; events are read by their ``type``. Decoded dicts of the
same shape are read too. The items the SDK converts from Chat Completions streams all carry the
placeholder id ``__fake_id__``; those are told apart by their ``output_index`` instead.

When the run is cancelled (``RunResultStreaming.cancel()``) the event stream ends mid-response:
the driver gives ``Finished(ERROR)`` and nothing open is flushed, so no cut-off call is reported
as complete. An exception the run raises (``ModelBehaviorError``, the model's ``APIError``) is
re-raised after ``Finished(ERROR)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ..events import Event
from .._backend import AgentsFast
from ._common import Adapter, ProviderProtocolError, adrive, drive, fields, get
from .openai_responses import ResponsesAdapter

__all__ = ["AgentsAdapter", "PLACEHOLDER_ID", "adapter", "ato_events", "to_events"]

PLACEHOLDER_ID = "__fake_id__"
"""The item id the SDK gives every item it converts from a Chat Completions stream (all alike)."""


class AgentsAdapter(AgentsFast, Adapter):
    """Agents SDK stream events in, argstream events out (see the module doc)."""

    def __init__(self) -> None:
        self._responses = ResponsesAdapter()

    # ``chunk(item)``, the test for the dominant event, comes from ``AgentsFast`` (``_fastpath``,
    # compiled with the core): the Responses adapter's test on the event a ``RawResponsesStreamEvent``
    # wraps, by ``output_index`` for the placeholder ids of converted items (which ``feed`` drops).

    def feed(self, item: Any) -> list[Event]:
        if get(item, "type") != "raw_response_event":
            return []
        data = get(item, "data")
        if data is None:
            raise ProviderProtocolError("a raw_response_event without data")
        if get(data, "item_id") == PLACEHOLDER_ID:
            data = {**fields(data), "item_id": None}
        else:
            output = get(data, "item")
            if output is not None and get(output, "id") == PLACEHOLDER_ID:
                data = {**fields(data), "item": {**fields(output), "id": None}}
        return self._responses.feed(data)

    def end(self) -> list[Event]:
        return self._responses.end()


def adapter() -> AgentsAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return AgentsAdapter()


def to_events(stream: Iterable[Any]) -> Iterator[Event]:
    """Events from an Agents SDK event stream (see the module doc)."""
    return drive(AgentsAdapter(), stream)


def ato_events(stream: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events` (``stream_events()`` is async)."""
    return adrive(AgentsAdapter(), stream)
