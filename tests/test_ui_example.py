"""The example chat app (examples/chat_ui) over HTTP, without a browser: its AG-UI endpoint, and the
server the browser test drives (uvicorn in a thread on a free port)."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT

pytest.importorskip("starlette", reason="the ui extra (starlette)")
uvicorn = pytest.importorskip("uvicorn", reason="the ui extra (uvicorn)")

APP = ROOT / "examples" / "chat_ui" / "app.py"
if not APP.exists():
    pytest.skip(f"the example app is not here ({APP})", allow_module_level=True)
DELAY = 0.08  # seconds between wire events: slow enough to watch the content grow


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("chat_ui_app", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Server:
    """The example app under uvicorn in a thread."""

    def __init__(self, recording: Path | None = None, model: str | None = None) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        app = load_example().create_app(recording, DELAY, model)
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the example server did not start"
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}/state", timeout=10) as response:
            return json.loads(response.read())

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def test_the_ag_ui_endpoint_streams_valid_events() -> None:
    """The example's POST /agent: the same replay as AG-UI events, the prompt declined over POST /answer."""
    from test_ui_encoders import validate_ag_ui

    server = Server()
    try:
        request = urllib.request.Request(f"{server.url}/agent", method="POST")
        events = []
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for line in response:
                if not line.startswith(b"data: "):
                    continue
                event = json.loads(line[6:])
                validate_ag_ui(event)
                events.append(event)
                if event["type"] == "CUSTOM" and event["name"] == "argstream.approval_request":
                    body = json.dumps({"approvalId": event["value"]["approvalId"], "approved": False}).encode()
                    answer = urllib.request.Request(f"{server.url}/answer", body, method="POST",
                                                    headers={"content-type": "application/json"})
                    with urllib.request.urlopen(answer, timeout=10) as answered:
                        assert json.loads(answered.read()) == {"ok": True}
        assert events[0]["type"] == "RUN_STARTED"
        assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
        assert server.state()["executed"] == []
    finally:
        server.stop()


def sse_events(response: Any) -> Any:
    for line in response:
        if line.startswith(b"data: ") and line.strip() != b"data: [DONE]":
            yield json.loads(line[6:])


@pytest.mark.sdk
def test_a_real_model_through_the_anthropic_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--model``: the official SDK streams from a loopback server (the demo recording as SSE); approve runs it."""
    pytest.importorskip("anthropic")
    from importlib import resources

    from loopback import LoopbackServer, Reply, sse

    from test_ui_encoders import validate_ai_sdk

    demo = [json.loads(line) for line in
            resources.files("argstream").joinpath("data/demo.anthropic.jsonl").read_text().splitlines()]
    with LoopbackServer(Reply.body(sse(demo, event_field="type"), 97)) as upstream:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", upstream.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        server = Server(model="claude-test")
        try:
            request = urllib.request.Request(f"{server.url}/chat", method="POST")
            types = []
            with urllib.request.urlopen(request, timeout=60) as response:
                for chunk in sse_events(response):
                    validate_ai_sdk(chunk)
                    types.append(chunk["type"])
                    if chunk["type"] == "data-argstream-approval" and chunk["data"]["state"] == "requested":
                        # first the path alone, then (asked again) the whole call
                        assert chunk["data"]["arguments"]["path"] == "src/greet.py"
                        body = json.dumps({"approvalId": chunk["data"]["approvalId"], "approved": True}).encode()
                        answer = urllib.request.Request(f"{server.url}/answer", body, method="POST")
                        urllib.request.urlopen(answer, timeout=10).close()
            assert "tool-output-available" in types and types[-1] == "finish"
            assert server.state()["executed"] == [{"name": "fs_create_file", "path": "src/greet.py"}]
            sent = json.loads(upstream.exchanges[0].body)
            assert sent["model"] == "claude-test" and sent["stream"] is True
        finally:
            server.stop()


def test_the_page_allows_no_script_but_its_own() -> None:
    server = Server()
    try:
        with urllib.request.urlopen(f"{server.url}/", timeout=10) as response:
            policy = response.headers["content-security-policy"]
            page = response.read().decode("utf-8")
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        assert '<script src="/app.js"></script>' in page and "innerHTML" not in page
        with urllib.request.urlopen(f"{server.url}/app.js", timeout=10) as response:
            assert response.headers["content-type"].startswith("text/javascript")
            assert "innerHTML" not in response.read().decode("utf-8").replace("never innerHTML", "")
    finally:
        server.stop()
