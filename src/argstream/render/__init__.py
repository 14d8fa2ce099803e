"""Terminal rendering of streams: what a person sees while the arguments arrive."""

from .terminal import TerminalRenderer, format_call, label

__all__ = ["TerminalRenderer", "format_call", "label"]
