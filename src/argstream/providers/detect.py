"""Which provider module reads a stream, told from its first item (an SDK object or a decoded wire dict).

Replaces ``argstream.stream.detect_provider`` (same name and signature); adds the Gemini
Interactions API (items with ``event_type``) and Gemini's blocked-prompt chunk.

Frameworks are told apart the same way, by the module of the item's type, without importing
them: LangChain message chunks (also as LangGraph ``(chunk, metadata)`` pairs and
``astream_events`` dicts) are ``langchain``, pydantic-ai's events ``pydantic_ai``, the OpenAI
Agents SDK's stream events ``openai_agents`` and LiteLLM's chunks ``litellm``.
"""

from __future__ import annotations

from typing import Any

from ._common import get

__all__ = ["detect_provider"]


def detect_provider(item: Any) -> str:
    """The name of the ``argstream.providers`` module that reads ``item``.

    Raises:
        ValueError: the item matches no known wire format.
    """
    if type(item) is tuple and len(item) == 2 and _module(item[0]).startswith("langchain"):
        return "langchain"  # LangGraph stream_mode="messages"
    module = _module(item)
    framework = _framework(module, item)
    if framework is not None:
        return framework
    if module.startswith("anthropic."):
        return "anthropic"
    if module.startswith("openai."):
        if ".responses" in module or str(get(item, "type", "")).startswith("response."):
            return "openai_responses"
        return "openai_chat"
    if module.startswith("google."):
        return "gemini"
    if module.startswith("ollama"):
        return "ollama"
    if type(item) is dict and str(item.get("event", "")).startswith("on_") and "run_id" in item:
        return "langchain"  # astream_events
    kind = get(item, "type", "")
    kind = kind if isinstance(kind, str) else ""
    if kind.startswith("response.") or get(item, "sequence_number") is not None:
        return "openai_responses"
    if kind.startswith(("message_", "content_block_")) or kind in ("ping", "error"):
        return "anthropic"
    if get(item, "object") == "chat.completion.chunk" or get(item, "choices") is not None:
        return "openai_chat"
    if any(get(item, k) is not None for k in ("candidates", "usageMetadata", "promptFeedback", "event_type")):
        return "gemini"
    if get(item, "message") is not None and get(item, "done") is not None:
        return "ollama"
    raise ValueError(f"cannot tell which provider streams {str(item)[:200]}; pass provider=")


_FRAMEWORKS = (
    ("langchain", "langchain"),
    ("pydantic_ai.", "pydantic_ai"),
    ("agents.", "openai_agents"),
    ("litellm.", "litellm"),
)


def _module(item: Any) -> str:
    return type(item).__module__ or ""


_AGENTS_EVENTS = frozenset(("agent_updated_stream_event", "raw_response_event", "run_item_stream_event"))


def _framework(module: str, item: Any) -> str | None:
    """The framework adapter for ``item``, an object of a type defined in ``module``, if any."""
    for prefix, name in _FRAMEWORKS:
        if module.startswith(prefix):
            if name == "openai_agents" and getattr(item, "type", None) not in _AGENTS_EVENTS:
                return None  # another package named ``agents``
            return name
    return None
