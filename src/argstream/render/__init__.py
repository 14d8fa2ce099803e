"""Terminal rendering of streams: what a person sees while the arguments arrive.

``format_call`` and friends are plain string building (no dependency); ``TerminalRenderer``
draws with rich, the ``render`` extra, and is imported on first use.
"""

from typing import Any

from .formatting import STYLES, format_call, format_json_call, format_prompt, label, placeholder_key

__all__ = ["STYLES", "TerminalRenderer", "format_call", "format_json_call", "format_prompt", "label",
           "placeholder_key"]


def __getattr__(name: str) -> Any:
    if name == "TerminalRenderer":
        from .terminal import TerminalRenderer

        return TerminalRenderer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
