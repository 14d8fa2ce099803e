"""Provider adapters: one module per wire format, each with ``to_events(stream)`` and ``ato_events(stream)``.

``anthropic`` (Messages), ``openai_chat`` (Chat Completions: OpenAI, OpenRouter, llama.cpp, vLLM,
DeepSeek, Mistral, ...), ``openai_responses``, ``gemini`` and ``ollama``. Each takes the official
SDK's stream objects or the decoded wire dicts and imports no SDK; so do the frameworks'
adapters, ``langchain``, ``pydantic_ai``, ``openai_agents`` and ``litellm`` (docs/frameworks.md).
Submodules load on first use: ``from argstream.providers import anthropic`` or
``argstream.providers.anthropic.to_events(...)``.

``detect.detect_provider(item)`` names the module for a stream's first item, and ``wire``
decodes recorded or raw SSE / NDJSON text into wire items. A wire item that breaks its format
raises :class:`ProviderProtocolError` (after ``Finished(ERROR)``); docs/providers.md gives the
semantics chosen for duplicated, spliced and contradicting streams.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._common import ProviderProtocolError

_MODULES = ("anthropic", "detect", "gemini", "ollama", "openai_chat", "openai_responses", "wire")
_FRAMEWORKS = ("langchain", "litellm", "openai_agents", "pydantic_ai")
__all__ = ["ProviderProtocolError", *_MODULES, *_FRAMEWORKS]


def __getattr__(name: str) -> Any:
    if name in _MODULES or name in _FRAMEWORKS:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
