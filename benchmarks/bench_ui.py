"""What the chat front-end encoders add per argument delta, on top of ``iter_tool_stream``.

The workload is tests/recordings/generate.py's ``anthropic/create_file_20k``: an
``fs_create_file`` call whose ~20 KB of argument JSON arrives in ~4,300 deltas. Cases, all over
the same decoded wire dicts:

- ``iter_tool_stream``: the items alone (the floor);
- ``ai_sdk``, ``ai_sdk-lean`` (``fragments=False``), ``ai_sdk-sse`` (framed to SSE bytes): the AI SDK
  UI chunks of those items;
- ``ag_ui``, ``ag_ui-sse``: the AG-UI events (``-lean``: ``fragments=False``);
- ``encode-only ...``: the encoders alone over the items collected once: the cost they add on top
  of ``iter_tool_stream`` (a difference of two pipeline timings drowns in noise on shared cores);
  ``-async``: through the async twins, on one event loop;
- ``pydantic-ai-vercel`` / ``pydantic-ai-ag-ui``: pydantic-ai's own adapters
  (``VercelAIEventStream`` / ``AGUIEventStream``: ``handle_event`` + ``encode_event``, to SSE text)
  fed pydantic-ai's ``PartDeltaEvent`` for the same deltas, built outside the timed call. They start
  from their own events, so their figure is the adapter alone, to compare with ``encode-only``
  (``-sse``: to SSE text, as theirs is).

Each case is checked outside the timed call (the deltas join to the recording's arguments).

    python -m pytest benchmarks/bench_ui.py --benchmark-min-rounds=5      # pytest-benchmark
    python benchmarks/bench_ui.py                                        # one table, per-delta figures
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from recordings.generate import RECORDINGS  # noqa: E402

from argstream.stream import ToolCallArgumentProgress, iter_tool_stream  # noqa: E402
from argstream.ui import aag_ui_events, aai_sdk_chunks, ag_ui_events, ag_ui_sse, ai_sdk_chunks, ai_sdk_sse  # noqa: E402

RECORDING = RECORDINGS["anthropic/create_file_20k"]
WIRE = RECORDING.items
ARGUMENTS = RECORDING.tool_calls[0][2]
DELTAS = sum(1 for item in WIRE if item.get("delta", {}).get("type") == "input_json_delta")


def run_items() -> list[Any]:
    return list(iter_tool_stream(WIRE, "anthropic"))


def run_ai_sdk() -> list[Any]:
    return list(ai_sdk_chunks(iter_tool_stream(WIRE, "anthropic")))


def run_ai_sdk_lean() -> list[Any]:
    return list(ai_sdk_chunks(iter_tool_stream(WIRE, "anthropic"), fragments=False))


def run_ai_sdk_sse() -> list[bytes]:
    return list(ai_sdk_sse(ai_sdk_chunks(iter_tool_stream(WIRE, "anthropic"))))


def run_ag_ui() -> list[Any]:
    return list(ag_ui_events(iter_tool_stream(WIRE, "anthropic")))


def run_ag_ui_sse() -> list[bytes]:
    return list(ag_ui_sse(ag_ui_events(iter_tool_stream(WIRE, "anthropic"))))


ITEMS = run_items()


def encode_ai_sdk() -> list[Any]:
    return list(ai_sdk_chunks(ITEMS))


def encode_ai_sdk_lean() -> list[Any]:
    return list(ai_sdk_chunks(ITEMS, fragments=False))


def encode_ai_sdk_sse() -> list[bytes]:
    return list(ai_sdk_sse(ai_sdk_chunks(ITEMS)))


def encode_ai_sdk_lean_sse() -> list[bytes]:
    return list(ai_sdk_sse(ai_sdk_chunks(ITEMS, fragments=False)))


def encode_ag_ui_sse() -> list[bytes]:
    return list(ag_ui_sse(ag_ui_events(ITEMS)))


LOOP = asyncio.new_event_loop()  # one loop for the async cases: asyncio.run's setup is not the encoder's


async def _collect(frames: Any) -> list[bytes]:
    return [frame async for frame in frames]


def encode_ai_sdk_sse_async() -> list[bytes]:
    return LOOP.run_until_complete(_collect(ai_sdk_sse(aai_sdk_chunks(ITEMS))))


def encode_ag_ui_sse_async() -> list[bytes]:
    return LOOP.run_until_complete(_collect(ag_ui_sse(aag_ui_events(ITEMS))))


def encode_ag_ui_lean() -> list[Any]:
    return list(ag_ui_events(ITEMS, fragments=False))


def encode_ag_ui_lean_sse() -> list[bytes]:
    return list(ag_ui_sse(ag_ui_events(ITEMS, fragments=False)))


def encode_ag_ui() -> list[Any]:
    return list(ag_ui_events(ITEMS))


def pydantic_ai_events() -> list[Any] | None:
    """pydantic-ai's events for the same tool call: a start, one delta per wire delta, an end."""
    try:
        from pydantic_ai.messages import PartDeltaEvent, PartEndEvent, PartStartEvent, ToolCallPart, ToolCallPartDelta
    except ImportError:
        return None
    events: list[Any] = [PartStartEvent(index=0, part=ToolCallPart(tool_name="fs_create_file", args="",
                                                                   tool_call_id="toolu_1"))]
    events += [PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta=item["delta"]["partial_json"],
                                                               tool_call_id="toolu_1"))
               for item in WIRE if item.get("delta", {}).get("type") == "input_json_delta"]
    events.append(PartEndEvent(index=0, part=ToolCallPart(tool_name="fs_create_file", args=json.dumps(ARGUMENTS),
                                                          tool_call_id="toolu_1")))
    return events


PYDANTIC_AI_EVENTS = pydantic_ai_events()


def run_pydantic_ai(kind: str) -> list[str]:
    from pydantic_ai.ui.ag_ui import AGUIEventStream
    from pydantic_ai.ui.vercel_ai import VercelAIEventStream

    assert PYDANTIC_AI_EVENTS is not None
    stream = (VercelAIEventStream if kind == "vercel" else AGUIEventStream)(run_input=None)  # type: ignore[arg-type]

    async def main() -> list[str]:
        out = []
        for event in PYDANTIC_AI_EVENTS:
            async for chunk in stream.handle_event(event):
                out.append(stream.encode_event(chunk))
        return out

    return asyncio.run(main())


def joined(chunks: list[Any], key: str) -> Any:
    return json.loads("".join(c[key] for c in chunks if key in c and c["type"] in ("tool-input-delta",
                                                                                     "TOOL_CALL_ARGS")))


def check() -> None:
    assert sum(type(i) is ToolCallArgumentProgress for i in run_items()) > DELTAS // 2
    assert joined(run_ai_sdk(), "inputTextDelta") == ARGUMENTS
    assert joined(run_ai_sdk_lean(), "inputTextDelta") == ARGUMENTS
    assert joined(run_ag_ui(), "delta") == ARGUMENTS
    for frames, key in ((run_ai_sdk_sse(), "inputTextDelta"), (run_ag_ui_sse(), "delta")):
        events = b"".join(frames).decode("ascii").split("\n\n")  # an argument delta's frames come as one write
        assert events.pop() == ""
        if key == "inputTextDelta":
            assert events.pop() == "data: [DONE]"
        assert joined([json.loads(e.removeprefix("data: ")) for e in events], key) == ARGUMENTS


CASES = {
    "iter_tool_stream": run_items,
    "ai_sdk": run_ai_sdk,
    "ai_sdk-lean": run_ai_sdk_lean,
    "ai_sdk-sse": run_ai_sdk_sse,
    "ag_ui": run_ag_ui,
    "ag_ui-sse": run_ag_ui_sse,
    "encode-only ai_sdk": encode_ai_sdk,
    "encode-only ai_sdk-lean": encode_ai_sdk_lean,
    "encode-only ai_sdk-sse": encode_ai_sdk_sse,
    "encode-only ai_sdk-lean-sse": encode_ai_sdk_lean_sse,
    "encode-only ag_ui": encode_ag_ui,
    "encode-only ag_ui-sse": encode_ag_ui_sse,
    "encode-only ag_ui-lean": encode_ag_ui_lean,
    "encode-only ag_ui-lean-sse": encode_ag_ui_lean_sse,
    "encode-only ai_sdk-sse-async": encode_ai_sdk_sse_async,
    "encode-only ag_ui-sse-async": encode_ag_ui_sse_async,
}
if PYDANTIC_AI_EVENTS is not None:
    CASES["pydantic-ai-vercel"] = lambda: run_pydantic_ai("vercel")
    CASES["pydantic-ai-ag-ui"] = lambda: run_pydantic_ai("ag_ui")


try:
    import pytest
except ImportError:  # pragma: no cover - the table below needs only the standard library
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.mark.parametrize("case", list(CASES))
    def test_encode(benchmark: Any, case: str) -> None:
        check()
        benchmark.group = f"ui create_file_20k deltas={DELTAS}"
        benchmark.extra_info["deltas"] = DELTAS
        benchmark(CASES[case])


def best_of(fn: Any, rounds: int = 15) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()  # CPU time: the figure a loaded machine (shared cores) leaves least distorted
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    from argstream import BACKEND

    check()
    print(f"anthropic/create_file_20k: {DELTAS} argument deltas, backend {BACKEND}")
    print(f"{'case':<28}{'ms':>9}{'µs/delta':>11}{'added µs/delta':>16}")
    for name, fn in CASES.items():
        seconds = best_of(fn)
        added = f"{seconds / DELTAS * 1e6:.2f}" if name.startswith("encode-only") else ""
        print(f"{name:<28}{seconds * 1e3:>9.2f}{seconds / DELTAS * 1e6:>11.2f}{added:>16}")


if __name__ == "__main__":
    main()
