"""Raw input read by event templates (``providers.templates``, ``raw.RawReader``): an event that fits a
learned template gives exactly what decoding it would, and anything else is decoded.

The soundness property: whenever a template reads an event's text, ``json.loads`` of that text is the
learned event with the read text (and other free values) in the holes. Hostile lines (a key written
twice, structure smuggled into the argument string, other spacing, escapes in a free field) either
fit with that meaning or are decoded; a stream gives the same items raw as from its decoded events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argstream import _backend, iter_tool_stream
from argstream.providers import templates
from argstream.providers.templates import learn
from argstream.providers.wire import iter_wire
from argstream.raw import RawReader

from _provider_runs import FOLDERS, expected_of
from test_pipeline_fastpath import canon
from test_raw_input import anthropic_sse, cut

@pytest.fixture(autouse=True, params=["cython", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test over the compiled template and SSE lane, and over the pure path."""
    if request.param == "cython":
        if _backend.raw_c is None:
            pytest.skip("the compiled core is not in use")
    else:
        monkeypatch.setattr(templates, "_TEMPLATE", templates.EventTemplate)
        monkeypatch.setattr(RawReader, "lane", None)
    return str(request.param)


ANTHROPIC = ("delta", "partial_json")
CHAT = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")
RESPONSES = ("delta",)


def anthropic_event(text: str, index: int = 0) -> str:
    return json.dumps({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": text}}, separators=(",", ":"))


def responses_event(text: str, number: int = 7, pad: str = "aZ09") -> str:
    return json.dumps({"type": "response.function_call_arguments.delta", "sequence_number": number,
                       "item_id": "fc_1", "output_index": 0, "delta": text, "obfuscation": pad},
                      separators=(",", ":"))


def chat_event(text: str) -> str:
    return json.dumps({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                       "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": text}}]},
                                    "finish_reason": None}]}, separators=(",", ":"))


def template_of(line: str, path: tuple[Any, ...], free: tuple[str, ...] = ()) -> Any:
    template = learn(line, json.loads(line), path, free)
    assert template is not None
    return template


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def agrees(template: Any, line: str, path: tuple[Any, ...], free: tuple[str, ...] = ()) -> None:
    """What the template reads of ``line`` is what decoding it says, or nothing."""
    text = template.match(line)
    if text is None:
        return
    value = json.loads(line)  # a fit is valid JSON
    assert at(value, path) == text and type(at(value, path)) is str
    for name in free:
        value.pop(name, None)
    item = dict(template.item)
    for name in free:
        item.pop(name, None)
    expected = json.loads(json.dumps(item))
    node = expected
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = text
    assert value == expected


@pytest.mark.parametrize("text", ["a", "{\"path\": \"src/", "é☃🎉", "\\n\t\"", "\ud83d", "", " "])
def test_a_fit_reads_the_decoded_text(text: str) -> None:
    template = template_of(anthropic_event("seed"), ANTHROPIC)
    assert template.match(anthropic_event(text)) == text
    responses = template_of(responses_event("seed"), RESPONSES, ("sequence_number", "obfuscation"))
    assert responses.match(responses_event(text, number=123456, pad="")) == text
    chat = template_of(chat_event("seed"), CHAT, ("obfuscation",))
    assert chat.match(chat_event(text)) == text


HOSTILE = [
    # a key written twice: decoding keeps the last, a template must not read the first
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a","partial_json":"b"}}',
    # structure after the string that changes the call the event is for
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"},"index":1}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"}} ',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\\"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\x01"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\\x"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\\ud83d"}}',
    '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a"}}',
    '{"type":"content_block_delta", "index":0,"delta":{"type":"input_json_delta","partial_json":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":1}}',
]


@pytest.mark.parametrize("line", HOSTILE)
def test_hostile_lines_fit_only_with_their_decoded_meaning(line: str) -> None:
    template = template_of(anthropic_event("seed"), ANTHROPIC)
    agrees(template, line, ANTHROPIC)
    if '"partial_json":"b"' in line or '"index":1' in line or "\x01" in line or "\\x" in line:
        assert template.match(line) is None


def test_free_fields_take_plain_tokens_only() -> None:
    free = ("sequence_number", "obfuscation")
    template = template_of(responses_event("seed"), RESPONSES, free)
    line = responses_event("x")
    assert template.match(line.replace('"sequence_number":7', '"sequence_number":1.5')) is None
    assert template.match(line.replace('"sequence_number":7', '"sequence_number":"7"')) is None
    assert template.match(line.replace('"sequence_number":7', '"sequence_number":07')) is None
    assert template.match(line.replace('"obfuscation":"aZ09"', '"obfuscation":"a\\"Z"')) is None
    assert template.match(line.replace('"item_id":"fc_1"', '"item_id":"fc_2"')) is None


def test_no_template_when_the_text_key_is_ambiguous() -> None:
    line = '{"type":"content_block_delta","index":0,"x\\"partial_json":"z","delta":{"type":"input_json_delta","partial_json":"a"}}'
    assert learn(line, json.loads(line), ANTHROPIC) is None
    twice = '{"partial_json":"q","type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"}}'
    assert learn(twice, json.loads(twice), ANTHROPIC) is None


_JSONISH = st.sampled_from(['"', "\\", ",", ":", "}", "]", "{", "[", " ", '"a":"b"', '\\"', "\\u0041", "\x00", "1", "null"])


@settings(max_examples=300)
@given(text=st.text(max_size=20), where=st.integers(0, 200), insert=st.lists(_JSONISH, max_size=4),
       drop=st.integers(0, 3), kind=st.sampled_from(["anthropic", "responses", "chat"]))
def test_soundness_a_fit_always_means_what_decoding_says(text: str, where: int, insert: list[str], drop: int,
                                                          kind: str) -> None:
    event, path, free = {"anthropic": (anthropic_event, ANTHROPIC, ()),
                         "responses": (responses_event, RESPONSES, ("sequence_number", "obfuscation")),
                         "chat": (chat_event, CHAT, ("obfuscation",))}[kind]
    template = template_of(event("seed"), path, free)
    line = event(text)
    assert template.match(line) == text
    where = min(where, len(line))
    mutated = line[:where] + "".join(insert) + line[where + drop:]
    agrees(template, mutated, path, free)


# -- whole streams: raw text gives the items its decoded events give ------------------------------------


def items_of(chunks: Any, provider: str) -> tuple[list[Any], type | None]:
    """The stream's items as comparable data, and the type of the exception that ended it."""
    out: list[Any] = []
    try:
        for item in iter_tool_stream(chunks, provider):
            out.append(canon(item))
    except Exception as exc:  # noqa: BLE001 - compared below
        return out, type(exc)
    return out, None


def recordings() -> list[tuple[Path, str, str]]:
    found = []
    for folder in FOLDERS:
        for key, expected in sorted(expected_of(folder).items()):
            if isinstance(expected, dict) and expected.get("format") and not expected.get("lines_not_json"):
                found.append((folder, key, expected["format"]))
    return found


@pytest.mark.parametrize("folder,key,fmt", recordings() or [pytest.param(None, None, None, marks=pytest.mark.skip(
    reason="../shared/recordings is absent"))])
@settings(max_examples=3)
@given(sizes=st.lists(st.integers(1, 300), max_size=4))
def test_every_recording_raw_gives_what_its_decoded_events_give(folder: Path, key: str, fmt: str,
                                                                sizes: list[int]) -> None:
    text = (folder / key).read_text(encoding="utf-8")
    assert items_of(cut(text, sizes), fmt) == items_of(iter_wire([text]), fmt)


@settings(max_examples=150)
@given(where=st.integers(0, 10**6), insert=st.lists(_JSONISH, max_size=3), drop=st.integers(0, 2),
       sizes=st.lists(st.integers(1, 200), max_size=4))
def test_a_mutated_delta_mid_stream_gives_what_decoding_gives(where: int, insert: list[str], drop: int,
                                                             sizes: list[int]) -> None:
    lines = anthropic_sse().split("\n")
    deltas = [n for n, line in enumerate(lines) if "input_json_delta" in line]
    n = deltas[len(deltas) // 2 + where % (len(deltas) // 2)]  # after templates are learned
    line = lines[n]
    at_ = 6 + where % (len(line) - 6)
    lines[n] = line[:at_] + "".join(insert) + line[at_ + drop:]
    text = "\n".join(lines)
    raw, raw_error = items_of(cut(text, sizes), "anthropic")
    decoded, decoded_error = items_of(_decoded_events(text), "anthropic")
    assert raw == decoded
    assert (raw_error is None) == (decoded_error is None)


def _decoded_events(text: str) -> Any:
    """The events of ``text`` decoded one line at a time (so none is lost to an error after it)."""
    yield from iter_wire(line + "\n" for line in text.split("\n"))


def test_the_async_twin_reads_raw_recordings_the_same() -> None:
    import asyncio

    from argstream import aiter_tool_stream

    async def body(chunks: list[str]) -> Any:
        for chunk in chunks:
            yield chunk

    async def collect(chunks: list[str], fmt: str) -> tuple[list[Any], type | None]:
        out: list[Any] = []
        try:
            async for item in aiter_tool_stream(body(chunks), fmt):
                out.append(canon(item))
        except Exception as exc:  # noqa: BLE001 - compared below
            return out, type(exc)
        return out, None

    found = recordings()
    if not found:
        pytest.skip("../shared/recordings is absent")
    for folder, key, fmt in found[::5]:
        chunks = cut((folder / key).read_text(encoding="utf-8"), [97])
        assert asyncio.run(collect(chunks, fmt)) == items_of(chunks, fmt), key


def test_the_compiled_lane_reads_the_deltas_of_a_live_stream(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    pure = RawReader._shortcut
    monkeypatch.setattr(RawReader, "_shortcut", lambda self, data, out: calls.append(data) or pure(self, data, out))
    whole = anthropic_sse()
    deltas = whole.count("input_json_delta")
    for chunks in ([event + "\n\n" for event in whole.split("\n\n") if event], [whole]):
        calls.clear()
        items, error = items_of(chunks, "anthropic")
        assert error is None and items == items_of(iter_wire([whole]), "anthropic")[0]
        # the first delta teaches the template; then the lane reads every other, or the pure path
        assert sum("input_json_delta" in data for data in calls) == (1 if backend == "cython" else deltas)
