"""argstream: typed fragments from tool-call argument JSON while it streams.

Parse each chunk once (``IncrementalArgParser``), aggregate fragments into
values (``FragmentAggregator``), and build typed events from every major
provider's stream (``argstream.providers``).
"""

from __future__ import annotations

from .aggregate import Completed, FragmentAggregator
from .builder import EventBuilder
from .errors import ArgumentStreamError, ConcurrentUseError, DuplicateKeyError, IncompleteJSONError
from .events import (
    ArgumentChunk,
    ChatMessage,
    ChatReasoning,
    ChatStructured,
    ConversationEvent,
    Event,
    EventPart,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    Reasoning,
    Structured,
    ToolCall,
    ToolCallArgumentProgress,
    ToolCallPart,
    ToolCallRequest,
    ToolCallStart,
)
from .fragments import DONE, ArrayItem, Done, Empty, ObjectEntry, Scalar, String, flatten, nest
from .parser import BACKEND, IncrementalArgParser
from .stream import (
    ReasoningDelta,
    StreamFinished,
    StructuredDelta,
    TextDelta,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
    ToolCallViolation,
    aiter_tool_stream,
    iter_tool_stream,
)

__version__ = "0.1.0"

__all__ = [
    # core (API.md 1-3)
    "BACKEND", "ArgumentStreamError", "ArrayItem", "Completed", "ConcurrentUseError", "DONE", "Done",
    "DuplicateKeyError", "Empty", "FragmentAggregator", "IncompleteJSONError", "IncrementalArgParser", "ObjectEntry",
    "Scalar", "String", "flatten", "nest",
    # events (API.md 4)
    "ArgumentChunk", "ChatMessage", "ChatReasoning", "ChatStructured", "ConversationEvent", "Event", "EventBuilder",
    "EventPart", "Finished", "FinishReason", "Flush", "Message", "Part", "Reasoning", "Structured", "ToolCall",
    "ToolCallArgumentProgress", "ToolCallPart", "ToolCallRequest", "ToolCallStart",
    # the one-loop helper
    "ReasoningDelta", "StreamFinished", "StructuredDelta", "TextDelta", "ToolCallFailed", "ToolCallFinished", "ToolCallStarted",
    "ToolCallViolation",
    "aiter_tool_stream", "iter_tool_stream",
]
