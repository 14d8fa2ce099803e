"""LiteLLM (``litellm.completion`` / ``acompletion`` with ``stream=True``) proxying Anthropic and
OpenAI Chat recordings served by the loopback server; its chunks read by ``iter_tool_stream`` as
they come, detected as ``litellm``.

The calls argstream reports equal the recording's, at several chunkings, over both parser
backends; a connection cut mid-arguments ends in ``Finished(ERROR)``. Skips without the extra.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from _frameworks_support import CHUNKINGS, EXPECTED, PIECES, Seen, body_of, builder_factory, expected_calls, \
    items_of, keys
from loopback import LoopbackServer, Reply
from recordings.generate import RECORDINGS as OWN

from argstream.providers.detect import detect_provider
from argstream.stream import aiter_tool_stream, iter_tool_stream

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch at import
litellm = pytest.importorskip("litellm", reason="the frameworks extra is not installed (litellm)")

pytestmark = [pytest.mark.sdk, pytest.mark.filterwarnings("ignore")]

SEVERAL = "LiteLLM reads one message per request; this stream holds several"
EXCLUDE = {
    "anthropic-programmatic-tool-calling.1.chunks.txt": "LiteLLM drops an input given whole in content_block_start",
    "anthropic-tool-search-deferred-bm25.chunks.txt": SEVERAL,
    "anthropic-tool-search-deferred-regex.chunks.txt": SEVERAL,
    "cererebras-structured-output-tools.1.chunks.txt": SEVERAL,
}
KEYS = keys("anthropic", exclude=EXCLUDE) + keys("openai_chat", exclude=EXCLUDE)


def completion(fmt: str, server: LoopbackServer, asynchronous: bool = False) -> Any:
    """LiteLLM's streaming call for ``fmt``, pointed at the loopback server by ``api_base``."""
    call = litellm.acompletion if asynchronous else litellm.completion
    if fmt == "anthropic":
        return call(model="anthropic/claude-test", api_base=server.url, api_key="test", stream=True, max_retries=0,
                    messages=[{"role": "user", "content": "go"}], timeout=20)
    return call(model="openai/gpt-test", api_base=server.url + "/v1", api_key="test", stream=True, max_retries=0,
                messages=[{"role": "user", "content": "go"}], timeout=20)


@pytest.mark.parametrize("chunking", list(CHUNKINGS))
@pytest.mark.parametrize("key", KEYS)
def test_recorded_calls_through_litellm(key: str, chunking: str, make_parser: Any) -> None:
    fmt = key.split("/")[0]
    seen = Seen()
    with LoopbackServer(Reply.body(body_of(fmt, items_of(key)), CHUNKINGS[chunking])) as server:
        for item in iter_tool_stream(completion(fmt, server), builder_factory=builder_factory(make_parser)):
            seen(item)
    assert seen.calls == expected_calls(EXPECTED[key])
    assert all(c.ok for c in seen.finished) and not seen.failed
    assert seen.reasons == ["TOOL_USE"]


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
async def test_async_parallel_calls_and_a_call_without_arguments(fmt: str, make_parser: Any) -> None:
    rec = OWN[f"{fmt}/parallel"]
    seen = Seen()
    with LoopbackServer(Reply.body(body_of(fmt, rec.items), PIECES)) as server:
        stream = await completion(fmt, server, asynchronous=True)
        async for item in aiter_tool_stream(stream, builder_factory=builder_factory(make_parser)):
            seen(item)
    assert sorted(seen.calls) == sorted(tuple(c) for c in rec.tool_calls)
    assert [c.arguments for c in seen.finished if c.name == "now"] == [{}]
    assert seen.reasons == ["TOOL_USE"]


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_connection_cut_mid_arguments(fmt: str, make_parser: Any) -> None:
    rec = OWN[f"{fmt}/modify_file"]
    body = body_of(fmt, rec.items)
    seen = Seen()
    with LoopbackServer(Reply.body(body, PIECES, cut_after=len(body) * 2 // 3)) as server:
        with pytest.raises(Exception) as caught:
            for item in iter_tool_stream(completion(fmt, server), builder_factory=builder_factory(make_parser)):
                seen(item)
    assert not isinstance(caught.value, AssertionError)
    assert seen.reasons == ["ERROR"] and seen.finished == []


def test_detected_as_litellm() -> None:
    with LoopbackServer(Reply.body(body_of("openai_chat", OWN["openai_chat/modify_file"].items), PIECES)) as server:
        first = next(iter(completion("openai_chat", server)))
    assert detect_provider(first) == "litellm"
