"""A chat page that shows a tool call's file while it streams, and asks Approve / Decline early.

    pip install 'argstream[ui]'
    python examples/chat_ui/app.py            # then open http://127.0.0.1:8000

It replays the recording shipped in the package (an Anthropic stream: thinking, text, then an
``fs_create_file`` call), paced like a live model, so no API key is needed; ``--recording FILE``
replays another one (one wire event a line, or raw SSE; the provider is detected); ``--model M``
asks Anthropic's API instead (``pip install anthropic``, ``ANTHROPIC_API_KEY``). The policy asks
before a file is written under ``src/``, as soon as the ``path`` argument is complete, while the
``content`` still streams. Approving lets the call finish and "run" (it writes to an in-memory
workspace, never to disk); declining cancels the response. The page speaks the AI SDK UI message
stream (POST /chat) and answers prompts through POST /answer; POST /agent streams the same as AG-UI
events.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
from collections.abc import AsyncIterator, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from argstream.cli import wire_objects
from argstream.policy import load_policies
from argstream.providers.detect import detect_provider
from argstream.ui import (
    AG_UI_HEADERS, AI_SDK_HEADERS, DecisionStream, aag_ui_events, aai_sdk_chunks, ag_ui_sse, ai_sdk_sse,
)

HERE = Path(__file__).resolve().parent
POLICY = """
[tools.fs_create_file.policy]
run = [
  { arg = "/path", prefix = "src/", mode = "ask" },
  { arg = "/path", prefix = "tmp/", mode = "unattended" },
  { mode = "ask" },
]
"""


def demo_tools() -> Any:
    return json.loads(resources.files("argstream").joinpath("data/demo_tools.json").read_text(encoding="utf-8"))


def read_recording(path: Path | None) -> list[dict[str, Any]]:
    """The wire events of ``path`` (default: the recording shipped in the package)."""
    if path is None:
        with resources.files("argstream").joinpath("data/demo.anthropic.jsonl").open("rb") as f:
            return list(wire_objects(f, "demo"))
    with path.open("rb") as f:
        return list(wire_objects(f, str(path)))


PROMPT = "Write a small greeter script to src/greet.py."
# Model text reaches the page only through textContent; the policy also forbids any script but ours.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'unsafe-inline'; object-src 'none'",
    "x-content-type-options": "nosniff",
}


def create_app(recording: Path | None = None, delay: float = 0.05, model: str | None = None) -> Starlette:
    """The app: ``recording`` is replayed for every chat request, one wire event every ``delay``
    seconds; with ``model``, Anthropic's API is asked instead (``ANTHROPIC_API_KEY``)."""
    wire = read_recording(recording) if model is None else []
    provider = detect_provider(wire[0]) if wire else "anthropic"
    adapter = importlib.import_module(f"argstream.providers.{provider}")
    tools = demo_tools()
    workspace: dict[str, str] = {}  # what approved calls "wrote"
    executed: list[dict[str, Any]] = []

    def execute(call: Any) -> dict[str, Any]:
        arguments = call.arguments or {}
        path, content = str(arguments.get("path", "")), str(arguments.get("content", ""))
        workspace[path] = content
        executed.append({"name": call.name, "path": path})
        return {"written": path, "characters": len(content)}

    decisions = DecisionStream(load_policies(POLICY, tools=tools), tools=tools, execute=execute)

    async def paced() -> AsyncIterator[dict[str, Any]]:
        for event in wire:
            await asyncio.sleep(delay)
            yield event

    async def page(request: Request) -> Response:
        return HTMLResponse((HERE / "index.html").read_text(encoding="utf-8"), headers=SECURITY_HEADERS)

    async def script(request: Request) -> Response:
        return Response((HERE / "app.js").read_text(encoding="utf-8"), media_type="text/javascript",
                        headers=SECURITY_HEADERS)

    async def provider_events() -> tuple[Any, Any]:
        """The response's events, and what closes its stream."""
        if model is None:
            events = adapter.ato_events(paced())
            return events, events.aclose
        from anthropic import AsyncAnthropic

        stream = await AsyncAnthropic().messages.create(
            model=model, max_tokens=4096, tools=tools, stream=True, messages=[{"role": "user", "content": PROMPT}])
        return adapter.ato_events(stream), stream.close

    async def chat(request: Request) -> Response:
        events, close = await provider_events()
        chunks = aai_sdk_chunks(decisions.aitems(events, close=close))
        return StreamingResponse(ai_sdk_sse(chunks), headers=AI_SDK_HEADERS)

    async def agent(request: Request) -> Response:
        events, close = await provider_events()
        stream = aag_ui_events(decisions.aitems(events, close=close))
        return StreamingResponse(ag_ui_sse(stream), headers=AG_UI_HEADERS)

    async def answer(request: Request) -> Response:
        try:
            body = await request.json()
            approval_id, approved = body["approvalId"], body["approved"]
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"ok": False, "error": "expected {approvalId, approved}"}, status_code=400)
        if type(approved) is not bool:
            return JSONResponse({"ok": False, "error": "approved is true or false"}, status_code=400)
        ok = decisions.answer(approval_id, approved)
        return JSONResponse({"ok": ok}, status_code=200 if ok else 404)

    async def state(request: Request) -> Response:
        return JSONResponse({"executed": executed, "files": sorted(workspace)})

    return Starlette(routes=[
        Route("/", page),
        Route("/app.js", script),
        Route("/chat", chat, methods=["POST"]),
        Route("/agent", agent, methods=["POST"]),
        Route("/answer", answer, methods=["POST"]),
        Route("/state", state),
    ])


def main(argv: Iterator[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recording", type=Path, help="a recorded stream to replay (default: the shipped demo)")
    parser.add_argument("--delay", type=float, default=0.05, help="seconds between wire events (default 0.05)")
    parser.add_argument("--model", help="ask this Anthropic model instead of replaying (needs ANTHROPIC_API_KEY)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(list(argv) if argv is not None else None)
    uvicorn.run(create_app(args.recording, args.delay, args.model), host=args.host, port=args.port)


if __name__ == "__main__":
    main()
