"""Which provider module reads a stream, told from its first item (an SDK object or a decoded wire dict).

Replaces ``argstream.stream.detect_provider`` (same name and signature); adds the Gemini
Interactions API (items with ``event_type``) and Gemini's blocked-prompt chunk.
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
    module = type(item).__module__ or ""
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
