"""Provider adapters: one module per wire format, each with ``to_events(stream)`` and ``ato_events(stream)``.

``anthropic`` (Messages), ``openai_chat`` (Chat Completions: OpenAI, OpenRouter, llama.cpp, vLLM,
DeepSeek, Mistral, ...), ``openai_responses``, ``gemini`` and ``ollama``. Each takes the official
SDK's stream objects or the decoded wire dicts and imports no SDK. Submodules load on first use:
``from argstream.providers import anthropic`` or ``argstream.providers.anthropic.to_events(...)``.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["anthropic", "gemini", "ollama", "openai_chat", "openai_responses"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
