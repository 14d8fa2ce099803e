"""Chat front ends: stream items as the AI SDK UI message stream and as AG-UI events.

- :func:`ai_sdk_chunks` / :func:`aai_sdk_chunks`: Vercel ``ai``'s UI message chunks (``useChat``);
- :func:`ag_ui_events` / :func:`aag_ui_events`: AG-UI events (``@ag-ui/client``);
- :func:`ai_sdk_sse`, :func:`ag_ui_sse`, :data:`AI_SDK_HEADERS`, :data:`AG_UI_HEADERS`: SSE framing
  for Starlette / FastAPI ``StreamingResponse``;
- :class:`DecisionStream`: policy decisions while a call streams, answered from the page.

The encoders take the items of :func:`argstream.iter_tool_stream` (or of
:meth:`DecisionStream.aitems`) and yield JSON-ready dicts, in order; ids are stable and unique
per response. See docs/ui.md.
"""

from __future__ import annotations

from .ag_ui import AgUiEncoder, aag_ui_events, ag_ui_events
from .ai_sdk import AiSdkEncoder, aai_sdk_chunks, ai_sdk_chunks
from .decisions import Approval, DecisionStream
from .items import ApprovalAnswered, ApprovalRequested, ToolCallDecided, ToolCallDenied, ToolCallOutput
from .sse import AG_UI_HEADERS, AI_SDK_HEADERS, ag_ui_sse, ai_sdk_sse, sse_event

__all__ = [
    "AG_UI_HEADERS", "AI_SDK_HEADERS", "AgUiEncoder", "AiSdkEncoder", "Approval", "ApprovalAnswered",
    "ApprovalRequested", "DecisionStream", "ToolCallDecided", "ToolCallDenied", "ToolCallOutput", "aag_ui_events",
    "aai_sdk_chunks", "ag_ui_events", "ag_ui_sse", "ai_sdk_chunks", "ai_sdk_sse", "sse_event",
]
