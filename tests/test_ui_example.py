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
DELAY = 0.08  # seconds between wire events: slow enough to watch the content grow


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("chat_ui_app", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Server:
    """The example app under uvicorn in a thread."""

    def __init__(self, recording: Path | None = None) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        app = load_example().create_app(recording, DELAY)
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
