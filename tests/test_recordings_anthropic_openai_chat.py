"""Recorded streams through the Anthropic and OpenAI Chat adapters and the EventBuilder.

The shared recordings (../shared/recordings, read in place, skipped when absent) must give
exactly the calls of expected.json; our own (tests/recordings/generate.py) their expectations.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import defaultdict

import pytest
from conftest import RECORDINGS
from recordings.generate import RECORDINGS as OWN
from recordings.generate import Recording

from argstream.builder import EventBuilder
from argstream.events import (
    ArgumentChunk,
    Finished,
    FinishReason,
    Flush,
    Part,
    ToolCall,
    ToolCallRequest,
    ToolCallStart,
)
from argstream.providers import anthropic, openai_chat

ADAPTERS = {"anthropic": anthropic, "openai_chat": openai_chat}
EXPECTED = RECORDINGS / "expected.json"


def shared_files() -> list[str]:
    if not EXPECTED.exists():
        return []
    return sorted(k for k in json.loads(EXPECTED.read_text()) if k.split("/")[0] in ADAPTERS)


def read_items(key: str) -> list[dict]:
    return [json.loads(line) for line in (RECORDINGS / key).read_text(encoding="utf-8").splitlines() if line.strip()]


class Result:
    """What a stream produced: flushed calls, the argument text each received, finishes, leftovers."""

    def __init__(self, fmt: str, items: list) -> None:
        builder = EventBuilder()
        self.events = list(ADAPTERS[fmt].to_events(items))
        self.calls: list[ToolCallRequest] = []
        self.texts: list[str] = []  # argument text per flushed call, in the same order
        self.finished: list[Finished] = []
        self.leftovers = []
        self.persisted = []
        self.starts: list[ToolCallStart] = []
        pending: dict[int, list[str]] = defaultdict(list)
        for event in self.events:
            out = builder.handle(event)
            if isinstance(event, Part) and isinstance(event.part, ToolCall):
                if isinstance(event.part.part, ArgumentChunk):
                    pending[event.index].append(event.part.part.text)
                else:
                    self.starts.append(event.part.part)
            elif isinstance(event, Flush):
                texts = pending.pop(event.index, [])
                if out is not None:
                    self.persisted.append(out)
                    if isinstance(out.kind, ToolCallRequest):
                        self.calls.append(out.kind)
                        self.texts.append("".join(texts))
            elif isinstance(event, Finished):
                self.finished.append(event)
                self.leftovers.extend(out)
                pending.clear()


@pytest.mark.parametrize("key", shared_files() or [pytest.param("absent", marks=pytest.mark.skip("no recordings"))])
def test_shared_recording(key):
    expected = json.loads(EXPECTED.read_text())[key]
    fmt = expected["format"]
    result = Result(fmt, read_items(key))
    want = [(c["id"], c["name"], c["arguments"]) for c in expected["tool_calls"]]
    assert [(c.id, c.name, c.arguments) for c in result.calls] == want
    assert all(c.error is None for c in result.calls)
    assert result.leftovers == []
    # the argument text each call received is what the provider streamed (no bytes lost or added)
    for call, text, exp in zip(result.calls, result.texts, expected["tool_calls"]):
        if exp.get("arg_bytes_from") != "reserialised" and exp.get("deltas"):
            assert len(text.encode()) == exp["arg_bytes"], call.id
    # one Finished per response, the last event a Finished, none of them an error
    assert isinstance(result.events[-1], Finished)
    responses = max([c.get("message", c.get("response", 0)) for c in expected["tool_calls"]], default=0) + 1
    assert len(result.finished) >= responses
    assert all(f.reason is not FinishReason.ERROR for f in result.finished)
    if any(c.get("client", True) for c in expected["tool_calls"]):
        assert FinishReason.TOOL_USE in {f.reason for f in result.finished}
    # ids are never concatenated, whatever a server repeats
    assert all(not s.id or s.id in {c["id"] for c in expected["tool_calls"]} for s in result.starts)


@pytest.mark.parametrize("key", sorted(OWN))
def test_own_recording(key):
    rec: Recording = OWN[key]
    result = Result(rec.format, rec.items)
    assert [(c.id, c.name, c.arguments) for c in result.calls] == rec.tool_calls
    assert all(c.error is None for c in result.calls)
    for call, text in zip(result.calls, result.texts):
        if call.id in rec.arg_texts:
            assert text == rec.arg_texts[call.id]
    assert [f.reason.name for f in result.finished] == [rec.finish]
    kinds = {type(e.kind).__name__: e.kind for e in result.persisted + result.leftovers}
    if rec.text:
        assert kinds["ChatMessage"].text == rec.text
    if rec.reasoning:
        assert kinds["ChatReasoning"].text == rec.reasoning
    if rec.truncated:
        cut = [e for e in result.leftovers if isinstance(e.kind, ToolCallRequest)]
        assert len(cut) == 1 and cut[0].metadata["incomplete"] is True
        assert type(cut[0].kind.error).__name__ == "IncompleteJSONError"
    else:
        assert result.leftovers == []


def test_own_big_recording_splits_escapes_and_surrogate_pairs():
    for fmt in ADAPTERS:
        rec = OWN[f"{fmt}/create_file_20k"]
        text = rec.arg_texts[rec.tool_calls[0][0]]
        assert 19_000 < len(text.encode()) < 22_000
        pieces = [p for p in _argument_pieces(rec)]
        assert "".join(pieces) == text
        cuts = list(itertools.accumulate(len(p) for p in pieces))[:-1]
        assert any(text[c - 1] == "\\" and text[c - 2] != "\\" for c in cuts)  # right after a backslash
        assert any(re.search(r"\\u[0-9a-f]{0,3}$", text[c - 5:c]) for c in cuts)  # inside a \uXXXX escape
        high = re.compile(r"\\ud[89ab][0-9a-f]{2}$")
        assert any(high.search(text[c - 6:c]) and text.startswith("\\ud", c) for c in cuts)  # between pair halves
        assert any(re.search(r"\\ud[89ab][0-9a-f]{2}\\u[0-9a-f]{0,3}$", text[c - 12:c]) for c in cuts)


def _argument_pieces(rec: Recording):
    for item in rec.items:
        if rec.format == "anthropic":
            if item.get("type") == "content_block_delta" and item["delta"]["type"] == "input_json_delta":
                if item["delta"]["partial_json"]:
                    yield item["delta"]["partial_json"]
        else:
            for choice in item.get("choices", []):
                for call in choice["delta"].get("tool_calls", []):
                    if call["function"].get("arguments"):
                        yield call["function"]["arguments"]
