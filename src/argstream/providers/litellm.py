"""LiteLLM streams (``litellm.completion(..., stream=True)`` / ``acompletion``) to argstream events.

LiteLLM turns every provider it proxies (Anthropic, Bedrock, Vertex, Ollama, ...) into Chat
Completions chunks: its ``ModelResponseStream`` objects have ``choices[].delta`` with
``content``, ``reasoning_content`` and ``tool_calls[]`` (``index``, ``id``, ``function.name``,
``function.arguments``) and a ``finish_reason``, so they are read by the Chat Completions
adapter (:mod:`argstream.providers.openai_chat`), with the same events, indexes and reasons.
This module names that for detection and for ``provider="litellm"``; nothing of LiteLLM is
imported. ``thinking_blocks`` and ``provider_specific_fields`` are not read (the reasoning
text is in ``reasoning_content``).

LiteLLM ends each response with a chunk holding ``finish_reason``; a stream it ends without one
(a dropped connection it does not raise for) gets ``Finished(ERROR)`` from the driver, its calls
never flushed.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ..events import Event
from ._common import adrive, drive
from .openai_chat import OpenAIChatAdapter

__all__ = ["adapter", "ato_events", "to_events"]


def adapter(*, structured: bool = False) -> OpenAIChatAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return OpenAIChatAdapter(structured=structured)


def to_events(stream: Iterable[Any], *, structured: bool = False) -> Iterator[Event]:
    """Events from a LiteLLM stream (``structured=True``: the content is structured-output JSON).

    Raises whatever the stream raises (after ``Finished(ERROR)``): LiteLLM's mapped exceptions
    (``litellm.APIConnectionError`` ...).
    """
    return drive(OpenAIChatAdapter(structured=structured), stream)


def ato_events(stream: AsyncIterable[Any] | Iterable[Any], *, structured: bool = False) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events`."""
    return adrive(OpenAIChatAdapter(structured=structured), stream)
