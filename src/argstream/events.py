"""Typed streaming events (RFD 012): what providers stream, and what the builder persists.

Streaming side: ``Part`` carries one ``EventPart`` (``Message``, ``Reasoning``,
``Structured``, ``ToolCall``) for an index, ``Flush`` closes an index,
``Finished`` ends the response. Persisted side: ``ConversationEvent`` with a
``ChatMessage``, ``ChatReasoning``, ``ChatStructured`` or ``ToolCallRequest``
kind. The two hierarchies share no types, so a streaming part can never hold a
persisted kind (``Part`` checks it at construction).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Mapping, Union

from . import _backend
from .jsonform import JsonForm

if TYPE_CHECKING:
    from .errors import ArgumentStreamError

__all__ = [
    "Message", "Reasoning", "Structured", "ToolCall", "ToolCallStart", "ArgumentChunk",
    "EventPart", "ToolCallPart", "Part", "Flush", "Finished", "FinishReason", "Event",
    "ChatMessage", "ChatReasoning", "ChatStructured", "ToolCallRequest", "EventKind",
    "ConversationEvent", "ToolCallArgumentProgress",
]


# -- tool call parts ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolCallStart(JsonForm):
    """Tool call identity; when several arrive for one index, the first non-empty value of each field wins."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ArgumentChunk(JsonForm):
    """A raw chunk of the tool call's argument JSON."""

    text: str


@dataclass(frozen=True, slots=True)
class WholeArguments:
    """A tool call's arguments that a provider sent whole, as their decoded value (internal).

    The fused pipeline's form of the one ``ArgumentChunk`` of compact JSON text that Gemini, Ollama
    and a whole Anthropic or Responses input otherwise give: the call takes the value's fragments
    from the value itself, without writing its text and parsing it back (``ArgumentCall.push_value``,
    the same items). Adapters make it only when the fused pipeline asks (``Adapter.whole_values``)
    and only for a value ``_backend.walkable`` accepts; ``to_events`` never yields it.
    """

    value: Any


ToolCallPart = Union[ToolCallStart, ArgumentChunk]


# -- event parts ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message(JsonForm):
    """A chunk of assistant message text."""

    text: str


@dataclass(frozen=True, slots=True)
class Reasoning(JsonForm):
    """A chunk of reasoning / thinking text."""

    text: str


@dataclass(frozen=True, slots=True)
class Structured(JsonForm):
    """A chunk of structured-output JSON text."""

    chunk: str


@dataclass(frozen=True, slots=True)
class ToolCall(JsonForm):
    """Tool call streaming data."""

    part: ToolCallPart

    def __post_init__(self) -> None:
        if not isinstance(self.part, (ToolCallStart, ArgumentChunk, WholeArguments)):
            raise TypeError(f"ToolCall holds a ToolCallStart or ArgumentChunk, not {type(self.part).__name__}")


EventPart = Union[Message, Reasoning, Structured, ToolCall]
_EVENT_PARTS = (Message, Reasoning, Structured, ToolCall)


class FinishReason(JsonForm, enum.Enum):
    """Why a response stream ended, uniform across providers."""

    COMPLETED = "completed"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    REFUSAL = "refusal"
    ERROR = "error"
    CANCELLED = "cancelled"
    PAUSED = "paused"  # Anthropic pause_turn: the server wants the turn continued


def _empty() -> dict[str, Any]:
    return {}


@dataclass(frozen=True, slots=True)
class Part(JsonForm):
    """Streaming data for ``index``, accumulated by the builder until ``Flush``."""

    index: int
    part: EventPart
    metadata: Mapping[str, Any] = field(default_factory=_empty)

    def __post_init__(self) -> None:
        if not isinstance(self.part, _EVENT_PARTS):
            raise TypeError(
                f"Part holds a Message, Reasoning, Structured or ToolCall, not {type(self.part).__name__}"
            )


@dataclass(frozen=True, slots=True)
class Flush(JsonForm):
    """Flush the parts accumulated for ``index`` into one ``ConversationEvent``."""

    index: int
    metadata: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class Finished(JsonForm):
    """The response stream is finished.

    ``metadata`` is usually empty; adapters put the provider's raw reason there
    (``"stop_reason"``) and, for an error event, its payload (``"error"``).
    """

    reason: FinishReason
    metadata: Mapping[str, Any] = field(default_factory=_empty)


Event = Union[Part, Flush, Finished]


# -- persisted side -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChatMessage(JsonForm):
    text: str


@dataclass(frozen=True, slots=True)
class ChatReasoning(JsonForm):
    text: str


@dataclass(frozen=True, slots=True)
class ChatStructured(JsonForm):
    """Structured output. ``error`` holds the ``ArgumentStreamError`` when its JSON text was not valid."""

    data: Any
    error: ArgumentStreamError | None = None


@dataclass(frozen=True, slots=True)
class ToolCallRequest(JsonForm):
    """A complete tool call. ``error`` holds the ``ArgumentStreamError`` when the argument text was not valid JSON;
    ``violations`` the schema violations proven in it (``argstream.schema.Violation``), when the
    builder was given the tool definitions."""

    id: str
    name: str
    arguments: dict[str, Any]
    error: ArgumentStreamError | None = None
    violations: tuple[Any, ...] = ()


EventKind = Union[ChatMessage, ChatReasoning, ChatStructured, ToolCallRequest]
_EVENT_KINDS = (ChatMessage, ChatReasoning, ChatStructured, ToolCallRequest)


#: the current time in UTC, an event's timestamp (a ``partial``: called from C, no Python frame per event)
_now: Callable[[], datetime] = partial(datetime.now, timezone.utc)


@dataclass(frozen=True, slots=True)
class ConversationEvent(JsonForm):
    """A persisted event: one flushed index."""

    kind: EventKind
    timestamp: datetime = field(default_factory=_now)
    metadata: Mapping[str, Any] = field(default_factory=_empty)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, _EVENT_KINDS):
            raise TypeError(f"not a persisted event kind: {type(self.kind).__name__}")


ToolCallArgumentProgress = _backend.ToolCallArgumentProgress
"""Ephemeral: one argument fragment of a tool call still streaming (``_calls_py`` documents it)."""
