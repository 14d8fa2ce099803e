"""``Tokenizer.offset``: how far the input was read when each event fired, the same in both cores."""

from __future__ import annotations

import json
import random

import pytest

from argstream import ArgumentStreamError
from argstream import parser as _parser


class _Recorder:
    """Records (event, payload, offset) and the raw text of every scalar, sliced by offsets."""

    def __init__(self, tok) -> None:
        self.tok = tok
        self.events: list[tuple] = []

    def _rec(self, name: str, payload: object = None) -> None:
        self.events.append((name, payload, self.tok.offset))

    def on_begin_object(self) -> None:
        self._rec("{")

    def on_end_object(self) -> None:
        self._rec("}")

    def on_begin_array(self) -> None:
        self._rec("[")

    def on_end_array(self) -> None:
        self._rec("]")

    def on_key(self, key: str) -> None:
        self._rec("key", key)

    def on_begin_string(self) -> None:
        self._rec("begin_string")

    def on_string_data(self, text: str) -> None:
        self._rec("data", text)

    def on_end_string(self) -> None:
        self._rec("end_string")

    def on_scalar(self, value: object) -> None:
        self._rec("scalar", repr(value))


def _tokenizers():
    out = [("python", _parser.TokenizerPy)]
    if _parser.TokenizerC is not None:
        out.append(("cython", _parser.TokenizerC))
    return out


def _run(cls, chunks):
    tok = cls()
    rec = _Recorder(tok)
    try:
        for chunk in chunks:
            tok.push(chunk, rec)
        tok.finish(rec)
    except ArgumentStreamError as exc:
        rec.events.append(("error", exc.msg, exc.pos))
    return rec.events


DOC = '{"path": "a\\"b", "n": -12.5e+3 , "t": true, "arr": [null, {"k": []}], "s": "caf\u00e9 \\ud83d\\ude00"}'


@pytest.mark.parametrize("name,cls", _tokenizers())
def test_offsets_point_just_past_each_event(name, cls) -> None:
    events = _run(cls, [DOC])
    offsets: dict = {}
    for event in events:
        offsets.setdefault(event[:2], event[2])  # the first occurrence of each
    assert DOC[: offsets[("key", "path")]].endswith('"path"')
    assert DOC[: offsets[("scalar", "-12500.0")]].endswith("-12.5e+3")
    assert DOC[: offsets[("scalar", "True")]].endswith("true")
    assert DOC[: offsets[("[", None)]].endswith('"arr": [')
    assert events[-1] == ("}", None, len(DOC))
    # a scalar's raw text is the slice between the previous event's offset and its own, stripped of ': ,'
    raw = [DOC[prev[2]:cur[2]].strip(" :,[") for prev, cur in zip(events, events[1:]) if cur[0] == "scalar"]
    assert raw == ["-12.5e+3", "true", "null"]


def test_both_cores_report_the_same_offsets_under_any_chunking() -> None:
    if _parser.TokenizerC is None:
        pytest.skip("compiled core not in use")
    rnd = random.Random(5)
    docs = [DOC, json.dumps({"a": [1, 2, {"b": "x" * 40}], "c": "é😀\n"}, ensure_ascii=False), '[1, 2', '{"a": "b\\x"}']
    for doc in docs:
        for data in (doc, doc.encode()):
            for _ in range(30):
                cuts = sorted(rnd.sample(range(1, len(data)), min(len(data) - 1, rnd.randint(0, 10))))
                chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
                assert _run(_parser.TokenizerPy, chunks) == _run(_parser.TokenizerC, chunks), (doc, cuts)
