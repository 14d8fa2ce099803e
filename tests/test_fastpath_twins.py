"""The adapters' fast tests (``_fastpath``) and their pure twins decide alike, on any item and any state:
the same ``(index, text)`` or ``None``, and the same change (a block marked streamed, a delta recorded),
or none when they decline."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace
from typing import Any, ClassVar

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import _backend, _fastpath_py
from argstream.providers import anthropic, langchain, openai_agents, openai_responses, pydantic_ai

pytestmark = pytest.mark.skipif(_backend.fastpath_c is None, reason="the compiled core is not in use")


def test_the_constants_are_the_providers() -> None:
    assert _fastpath_py._TEXT == anthropic._TEXT
    assert _fastpath_py._THINKING == anthropic._THINKING
    assert _fastpath_py._REASONING == openai_responses._REASONING
    assert _fastpath_py._TOOL == anthropic._TOOL
    assert _fastpath_py._MESSAGE == openai_responses._MESSAGE
    assert _fastpath_py._FUNCTION == openai_responses._FUNCTION
    assert _fastpath_py._FINISH_KEYS == langchain._FINISH_KEYS
    assert _fastpath_py._PART_TOOL == pydantic_ai._TOOL
    assert _fastpath_py._PLACEHOLDER == openai_agents.PLACEHOLDER_ID


KEYS = st.sampled_from(["type", "index", "delta", "partial_json", "item_id", "output_index", "other"])
VALUES = st.one_of(st.none(), st.integers(-1, 3), st.booleans(), st.text(max_size=3),
                   # indexes past 64 bits and at its ends: the compiled read must decline them as the twin does
                   st.sampled_from([2**70, -2**70, 2**63, 2**63 - 1, -2**63, 2**31, -1 - 2**31]),
                   st.sampled_from(["content_block_delta", "input_json_delta", "text_delta",
                                    "response.function_call_arguments.delta", "response.output_text.delta",
                                    "fc_1", "fc_2", "msg_1", "{\"a\""]))


class _Key(str):
    """A key that is a ``str`` subclass: equal to the name it spells, so found by a lookup by name."""

    __slots__ = ()


#: keys one character or one case away from the fields the fast tests read, and a non-ASCII one
_NEAR = {"choicez": 1, "Choices": 2, "idx": 3, "ïd": 4, "index\x00": 5, "argument": 6, "nam": 7, "finish-reason": 8}


def anthropic_items() -> st.SearchStrategy:
    delta = st.fixed_dictionaries({}, optional={
        "type": st.sampled_from(["input_json_delta", "text_delta", "thinking_delta", 1]),
        "partial_json": VALUES, "text": VALUES, "thinking": VALUES})
    delta = st.one_of(delta, delta.map(lambda d: {_Key(k): v for k, v in d.items()}), delta.map(lambda d: {1: 2, **d}))
    event = st.fixed_dictionaries({}, optional={"type": st.sampled_from(["content_block_delta", "ping", None]),
                                                "index": VALUES, "delta": st.one_of(delta, VALUES)})
    return st.one_of(event, event.map(lambda d: SimpleNamespace(**d)),
                     event.map(lambda d: {_Key(k): v for k, v in d.items()}), event.map(lambda d: {**_NEAR, **d}), VALUES)


def responses_items() -> st.SearchStrategy:
    event = st.fixed_dictionaries({}, optional={
        "type": st.sampled_from(["response.function_call_arguments.delta", "response.output_text.delta",
                                 "response.reasoning_text.delta", "response.reasoning_summary_text.delta"]),
        "item_id": VALUES, "output_index": VALUES, "delta": VALUES, "summary_index": VALUES})
    return st.one_of(event, event.map(lambda d: SimpleNamespace(**d)), VALUES)


def _twin_of(base: type) -> Any:
    """The module ``base`` comes from: the compiled ``_fastpath`` or its twin (each reads its own blocks and items)."""
    return _fastpath_py if base.__module__ == _fastpath_py.__name__ else _backend.fastpath_c


def _Block(base: type, kind: int) -> Any:
    return _twin_of(base).AnthropicBlock(kind)


def _Item(base: type, index: int, kind: str, item_id: Any, wrapper: Any) -> Any:
    item = _twin_of(base).ResponsesItem(index, kind, item_id)
    item.wrapper = wrapper
    return item


def _anthropic(base: type, blocks: dict[int, int], done: bool, plain: bool = True) -> Any:
    class Adapter(base):  # type: ignore[misc, valid-type]
        pass

    adapter = Adapter()
    adapter._blocks = {i: _Block(base, kind) for i, kind in blocks.items()}
    adapter._done = done
    adapter._plain_text = plain
    return adapter


@given(item=anthropic_items(), blocks=st.dictionaries(st.integers(-1, 3), st.integers(0, 3), max_size=3),
       done=st.booleans(), plain=st.booleans())
def test_anthropic_text_tests_agree(item: Any, blocks: dict[int, int], done: bool, plain: bool) -> None:
    """The test for a message text delta: the same answer, and no block changed either way."""
    seen = []
    for base in (_backend.fastpath_c.AnthropicFast, _fastpath_py.AnthropicFast):
        adapter = _anthropic(base, blocks, done, plain)
        seen.append((adapter.text_chunk(item), {i: b.streamed for i, b in adapter._blocks.items()}))
    assert seen[0] == seen[1]
    assert not any(seen[0][1].values())
    if seen[0][0] is not None:
        index, text, kind = seen[0][0]
        assert not done and type(text) is str and text
        assert blocks[index] == (anthropic._THINKING if kind == _fastpath_py.REASONING_TEXT else anthropic._TEXT)
        message = _fastpath_py.MESSAGE_TEXT if plain else _fastpath_py.STRUCTURED_TEXT
        assert kind in (_fastpath_py.REASONING_TEXT, message)


@given(item=anthropic_items(), text=st.one_of(st.none(), st.text(max_size=3)),
       blocks=st.dictionaries(st.integers(-1, 3), st.integers(0, 3), max_size=3), done=st.booleans())
def test_anthropic_fast_tests_agree(item: Any, text: Any, blocks: dict[int, int], done: bool) -> None:
    seen = []
    for base in (_backend.fastpath_c.AnthropicFast, _fastpath_py.AnthropicFast):
        adapter = _anthropic(base, blocks, done)
        got = adapter.chunk(item) if text is None else adapter.chunk(item, text=text)
        seen.append((got, {i: b.streamed for i, b in adapter._blocks.items()}))
    assert seen[0] == seen[1]


@given(item=responses_items(), text=st.one_of(st.none(), st.text(max_size=3)), anonymous=st.booleans(),
       items=st.lists(st.tuples(st.sampled_from(["function_call", "custom_tool_call"]),
                                st.sampled_from([None, "fc_1", "fc_2"]), st.sampled_from([None, "w"])), max_size=3))
def test_responses_fast_tests_agree(item: Any, text: Any, anonymous: bool, items: list) -> None:
    seen = []
    for base in (_backend.fastpath_c.ResponsesFast, _fastpath_py.ResponsesFast):
        class Adapter(base):  # type: ignore[misc, valid-type]
            pass

        adapter = Adapter()
        made = [_Item(base, n, kind, item_id, wrapper) for n, (kind, item_id, wrapper) in enumerate(items)]
        adapter._by_output = {n: one for n, one in enumerate(made)}
        adapter._by_id = {one.item_id: one for one in made if one.item_id is not None}
        got = adapter.chunk(item, anonymous) if text is None else adapter.chunk(item, anonymous, text=text)
        seen.append((got, [one.sent for one in made]))
    assert seen[0] == seen[1]


@given(item=responses_items(), items=st.lists(st.tuples(
    st.sampled_from(["message", "function_call", "reasoning"]), st.sampled_from([None, "msg_1", "fc_1"]),
    st.integers(-1, 2)), max_size=3))
def test_responses_text_tests_agree(item: Any, items: list) -> None:
    """The test for an ``output_text.delta`` and the reasoning deltas: the same answer, and the same item
    marked streamed."""
    seen = []
    for base in (_backend.fastpath_c.ResponsesFast, _fastpath_py.ResponsesFast):
        class Adapter(base):  # type: ignore[misc, valid-type]
            pass

        adapter = Adapter()
        made = [_Item(base, n, kind, item_id, None) for n, (kind, item_id, _) in enumerate(items)]
        for one, (_, _, summary) in zip(made, items):
            one.streamed, one.summary = False, summary
        adapter._by_output = {n: one for n, one in enumerate(made)}
        adapter._by_id = {one.item_id: one for one in made if one.item_id is not None}
        seen.append((adapter.text_chunk(item), [one.streamed for one in made]))
    assert seen[0] == seen[1]


def test_the_chat_payload_fields_are_the_providers() -> None:
    from argstream.providers import openai_chat

    assert _fastpath_py._PAYLOAD == openai_chat._PAYLOAD


class _Call:
    def __init__(self, call_id: str, name: str) -> None:
        self.id, self.name = call_id, name


class _Choice:
    def __init__(self, current: dict, calls: dict) -> None:
        self.current, self.calls, self.last_call = current, calls, None


def chat_items() -> st.SearchStrategy:
    function = st.fixed_dictionaries({}, optional={"arguments": VALUES, "name": VALUES})
    entry = st.fixed_dictionaries({}, optional={"index": VALUES, "id": VALUES, "function": st.one_of(function, VALUES)})
    delta = st.fixed_dictionaries({}, optional={"tool_calls": st.one_of(st.lists(entry, max_size=2), VALUES),
                                                "content": VALUES, "role": VALUES, "refusal": VALUES,
                                                "reasoning_content": VALUES, "reasoning": VALUES})
    choice = st.fixed_dictionaries({}, optional={"index": VALUES, "delta": st.one_of(delta, VALUES),
                                                 "finish_reason": VALUES})
    chunk = st.fixed_dictionaries({}, optional={"id": st.sampled_from(["r1", "r2", ""]),
                                                "choices": st.one_of(st.lists(choice, max_size=2), VALUES),
                                                "usage": VALUES, "type": st.none()})
    return st.one_of(chunk, chunk.map(lambda d: SimpleNamespace(**d)), VALUES)


class _Model(pydantic.BaseModel):
    """An SDK object whose fields a proxy put partly in pydantic's extras (as LiteLLM does)."""

    model_config = pydantic.ConfigDict(extra="allow")
    id: Any = None
    index: Any = None
    tool_calls: Any = None


class _Own(pydantic.BaseModel):
    """An SDK object without extras (``extra="ignore"``: ``__pydantic_extra__`` is ``None``)."""

    model_config = pydantic.ConfigDict(extra="ignore")
    delta: Any = None
    arguments: Any = None


class _Proxy:
    """An object whose fields come from a ``__dict__`` property: read with ``getattr``, not as a plain instance."""

    def __init__(self, fields: dict) -> None:
        self._fields = fields

    @property
    def __dict__(self) -> dict:  # type: ignore[override]
        return self._fields


def _wrap(how: int, value: Any) -> Any:
    """``value`` (a wire dict, nested) as an SDK object of one of several shapes, chosen by ``how``, or
    as a dict whose keys are not the plain decoded ones (6: ``str`` subclasses; 7: near misses
    beside them; 8: a key that is not a ``str`` at all)."""
    if isinstance(value, list):
        return [_wrap(how, v) for v in value]
    if not isinstance(value, dict):
        return value
    return _shape(how, {k: _wrap(how, v) for k, v in value.items()})


def _shape(how: int, inner: dict) -> Any:
    """One level of ``_wrap``: the dict ``inner`` (its values as they are) in shape ``how``."""
    if how == 1:
        return SimpleNamespace(**inner)
    if how == 2:
        return _Model(**inner)
    if how == 3:
        model = _Own(**{k: v for k, v in inner.items() if k in _Own.model_fields})
        return model
    if how == 4:
        return _Proxy(inner)
    if how == 5:  # a model whose extras slot was never set (built without pydantic's __init__)
        model = _Model.__new__(_Model)
        object.__setattr__(model, "__dict__", inner)
        return model
    if how == 6:
        return {_Key(k): v for k, v in inner.items()}
    if how == 7:
        return {**_NEAR, **inner}
    if how == 8:
        return {1: "x", **inner, (2, 3): None}
    if how == 9:  # extras set by hand to hold the model's own fields under their names: its own win
        model = _Model(**inner)
        model.__pydantic_extra__.update({k: _SHADOW for k in model.__dict__})
        return model
    if how == 10:  # declared fields kept in the extras only (set by hand): read there
        model = _Model.__new__(_Model)
        object.__setattr__(model, "__dict__", {k: v for k, v in inner.items() if k not in _Model.model_fields})
        object.__setattr__(model, "__pydantic_extra__", {k: v for k, v in inner.items() if k in _Model.model_fields})
        return model
    return inner


#: what ``_shape`` 9 puts in a model's extras under its own fields' names (read, it changes the answer)
_SHADOW = "shadow"
SHAPES = 10  # ``_shape``'s largest ``how``


CHAT_TEXT = st.one_of(st.none(), st.text(max_size=3))


def _chat(base: type, current: dict, name: str, response: str, finished: bool) -> Any:
    """A ``ChatFast`` of ``base`` with one choice whose call ``(0, "call", 0)`` (id ``fc_1``, named
    ``name``) has slot 0 and streams at the indexes ``current`` maps to it."""
    from argstream.providers._common import Slots

    class Adapter(base):  # type: ignore[misc, valid-type]
        pass

    adapter = Adapter()
    adapter._slots = Slots()
    adapter._slots((0, "call", 0))
    adapter._choices = {0: _Choice(current, {(0, "call", 0): _Call("fc_1", name)})}
    adapter._response_id, adapter._finished, adapter._hit = response, finished, None
    return adapter


@given(items=st.lists(st.tuples(chat_items(), CHAT_TEXT, st.integers(0, SHAPES), st.booleans()), min_size=1, max_size=3),
       finished=st.booleans(), response=st.sampled_from(["r1", ""]), named=st.booleans())
def test_chat_fast_tests_agree(items: list, finished: bool, response: str, named: bool) -> None:
    """On a run of items (the last hit's lookups kept between them, forgotten where the general way ran),
    in any of the shapes SDKs and proxies give."""
    seen = []
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        adapter = _chat(base, {0: (0, "call", 0), 1: (0, "call", 9)}, "f" if named else "", response, finished)
        run = []
        for item, text, how, general in items:
            item = _wrap(how, item)
            run.append((adapter.chunk(item) if text is None else adapter.chunk(item, text=text),
                        adapter._choices[0].last_call))
            if general:
                adapter._hit = None
        seen.append(run)
    assert seen[0] == seen[1]


@given(items=st.lists(st.tuples(chat_items(), st.integers(0, SHAPES)), min_size=1, max_size=3), finished=st.booleans(),
       response=st.sampled_from(["r1", ""]), opened=st.booleans(), plain=st.booleans())
def test_chat_text_tests_agree(items: list, finished: bool, response: str, opened: bool, plain: bool) -> None:
    """The test for a content-only chunk: the same answers on a run of items in any shape, and the same
    ``_hit`` and ``_clean_end`` after each (a hit does to them what the general way does)."""
    seen = []
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        adapter = _chat(base, {0: (0, "call", 0)}, "f", response, finished)
        if opened:
            adapter._slots((0, "content"))
            adapter._slots((0, "reasoning"))
        adapter._plain_text, adapter._clean_end = plain, True
        run = []
        for item, how in items:
            adapter._hit = ("kept",)
            run.append((adapter.text_chunk(_wrap(how, item)), adapter._hit, adapter._clean_end))
        seen.append(run)
    assert seen[0] == seen[1]
    message = _fastpath_py.MESSAGE_TEXT if plain else _fastpath_py.STRUCTURED_TEXT
    for got, _, _ in seen[0]:
        assert got is None or (opened and not finished and got[0] == 1 and got[2] == message) or (
            opened and not finished and got[0] == 2 and got[2] == _fastpath_py.REASONING_TEXT)


def test_chat_text_test_takes_a_content_chunk() -> None:
    chunk = {"id": "r1", "choices": [{"index": 0, "delta": {"content": "hé"}}]}
    sdk_like = {"id": "r1", "choices": [{"index": 0, "delta": {"content": "hé", "role": None, "refusal": None,
                                                                "tool_calls": None}, "finish_reason": None}]}
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        adapter = _chat(base, {0: (0, "call", 0)}, "f", "r1", False)
        adapter._slots((0, "content"))
        adapter._plain_text = True
        for how in (0, 1, 2, 4, 5, 6, 7, 9, 10):
            assert adapter.text_chunk(_wrap(how, chunk)) == (1, "hé", False)
            assert adapter.text_chunk(_wrap(how, sdk_like)) == (1, "hé", False)
        for other in ({"refusal": "no"}, {"tool_calls": []}, {"reasoning_content": "r"}, {"content": ""}):
            delta = {"content": "hé", **other}
            assert adapter.text_chunk({"id": "r1", "choices": [{"index": 0, "delta": delta}]}) is None
        thinking = {"id": "r1", "choices": [{"index": 0, "delta": {"reasoning_content": "so"}}]}
        assert adapter.text_chunk(thinking) is None  # the reasoning has no index yet: the general way
        adapter._slots((0, "reasoning"))
        for key in ("reasoning_content", "reasoning"):
            assert adapter.text_chunk({"id": "r1", "choices": [{"index": 0, "delta": {key: "so"}}]}) == (2, "so", True)
        for delta in ({"reasoning_content": "a", "reasoning": "b"}, {"reasoning": "b", "reasoning_details": [{}]},
                      {"reasoning_content": "a", "content": ""}, {"reasoning": ""}):
            assert adapter.text_chunk({"id": "r1", "choices": [{"index": 0, "delta": delta}]}) is None
        assert adapter.text_chunk({"id": "r2", "choices": [{"index": 0, "delta": {"content": "x"}}]}) is None
        assert adapter.text_chunk({**chunk, "usage": {"total_tokens": 1}}) is None


@pytest.mark.parametrize("how", [0, 1, 2, 4, 5, 6, 7, 8, 9, 10])
def test_chat_fast_test_reads_every_shape(how: int) -> None:
    """The dominant chunk is taken as a dict, a namespace, a pydantic object with extras, an object with a
    ``__dict__`` property, a pydantic object whose extras were never set, and dicts whose keys are ``str``
    subclasses, near misses or not ``str``; a content field hidden in the extras makes it decline."""
    chunk = {"id": "r1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "x"}}]}}]}
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        adapter = _chat(base, {0: (0, "call", 0)}, "f", "r1", False)
        assert adapter.chunk(_wrap(how, chunk)) == (0, "x")
        assert adapter.chunk(_wrap(how, chunk)) == (0, "x")  # from the kept lookups
        hidden = {**chunk, "choices": [{**chunk["choices"][0], "delta": {**chunk["choices"][0]["delta"], "content": "hi"}}]}
        assert adapter.chunk(_wrap(how, hidden)) is None
        renamed = {**chunk, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "fc_2", "function": {"arguments": "x"}}]}}]}
        assert adapter.chunk(_wrap(how, renamed)) is None  # another call on the same index: the general way


def _wrap_levels(hows: list[int], value: Any, depth: int = 0) -> Any:
    """``value`` with the dicts at each depth in ``_wrap``'s shape ``hows[depth]`` (the last one below):
    a chunk whose levels are of different kinds, as a proxy or a user's code may mix them."""
    if isinstance(value, list):
        return [_wrap_levels(hows, v, depth) for v in value]
    if not isinstance(value, dict):
        return value
    return _shape(hows[min(depth, len(hows) - 1)], {k: _wrap_levels(hows, v, depth + 1) for k, v in value.items()})


@given(items=st.lists(st.tuples(chat_items(), CHAT_TEXT, st.lists(st.integers(0, SHAPES), min_size=5, max_size=5)),
                      min_size=1, max_size=3),
       response=st.sampled_from(["r1", ""]), named=st.booleans())
def test_chat_fast_tests_agree_on_mixed_levels(items: list, response: str, named: bool) -> None:
    """Each level of a chunk in a shape of its own (SDK objects with or without extras, dicts inside
    them and the reverse): the compiled read, which takes the plain levels in one pass, answers as the
    twin, for the argument test and the text test alike, the first time a type is met and after."""
    seen = []
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        adapter = _chat(base, {0: (0, "call", 0), 1: (0, "call", 9)}, "f" if named else "", response, False)
        adapter._slots((0, "content"))
        adapter._plain_text = True
        run = []
        for item, text, hows in items:
            for _ in range(2):
                adapter._hit = None
                wrapped = _wrap_levels(hows, item)
                run.append((adapter.chunk(wrapped) if text is None else adapter.chunk(wrapped, text=text),
                            adapter.text_chunk(wrapped), adapter._choices[0].last_call))
        seen.append(run)
    assert seen[0] == seen[1]


def test_the_sdks_chunks_are_read_as_their_wire_dicts() -> None:
    """The openai SDK's own chunk objects: one whose extras are empty is taken as its wire dict is;
    one that carries a content field in the extras of any level (a compatible server's
    ``reasoning_content``), or an unknown field there, declines as the twin does."""
    chunks = pytest.importorskip("openai.types.chat")
    wire = {"id": "r1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a"}}]},
                         "finish_reason": None}]}
    choice, delta = wire["choices"][0], wire["choices"][0]["delta"]
    with_extras = [
        {**wire, "choices": [{**choice, "delta": {**delta, "reasoning_content": "so"}}]},
        {**wire, "choices": [{**choice, "delta": {**delta, "reasoning": None}}]},
        {**wire, "error": {"message": "x"}},
        {**wire, "choices": [{**choice, "stop_reason": None}]},
    ]
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        adapter = _chat(base, {0: (0, "call", 0)}, "f", "r1", False)
        for _ in range(2):  # (the second time, every level's type has been met)
            adapter._hit = None
            assert adapter.chunk(chunks.ChatCompletionChunk.model_validate(wire)) == (0, "{\"a")
        for one in with_extras:
            adapter._hit = None
            twin = _chat(_fastpath_py.ChatFast, {0: (0, "call", 0)}, "f", "r1", False)
            sdk = chunks.ChatCompletionChunk.model_validate(one)
            assert adapter.chunk(sdk) == twin.chunk(sdk) == twin.chunk(one)


class _Truth:
    """A content value that is not JSON: its truth is its own code's answer (``emptying``: that code
    empties the dicts of the chunk being read first)."""

    victims: ClassVar[list[dict]] = []

    def __init__(self, truth: bool, emptying: bool = False) -> None:
        self.truth, self.emptying = truth, emptying

    def __bool__(self) -> bool:
        if self.emptying:
            for victim in _Truth.victims:
                victim.clear()
        return self.truth

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Truth) and (self.truth, self.emptying) == (other.truth, other.emptying)

    __hash__ = None  # type: ignore[assignment]


CONTENT_VALUES = [None, "", "x", 0, 7, -1, 0.0, 2.5, True, False, [], ["x"], {}, {"a": 1},
                  _Truth(False), _Truth(True)]


@pytest.mark.parametrize("field", ["content", "refusal", "function_call", "reasoning_content", "reasoning",
                                   "reasoning_details", "role", "audio"])
@pytest.mark.parametrize("value", CONTENT_VALUES, ids=repr)
def test_a_content_field_beside_the_call_declines_as_the_twin_does(field: str, value: Any) -> None:
    """A wire delta with another field beside its ``tool_calls`` (as Mistral's, Alibaba's and LangChain's
    captures send): a content field that holds something makes the chunk no argument delta, whatever JSON
    kind it is, on the compiled read of a decoded chunk as on the twin; any other field is passed over."""
    answers = []
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        adapter = _chat(base, {0: (0, "call", 0)}, "f", "r1", False)
        delta = {field: value, "tool_calls": [{"index": 0, "function": {"arguments": "x"}}]}
        answers.append(adapter.chunk({"id": "r1", "choices": [{"index": 0, "delta": delta}]}))
    assert answers[0] == answers[1]
    holds = field not in ("role", "audio") and value is not None and bool(value)
    assert answers[0] == (None if holds else (0, "x"))


def test_a_content_value_that_empties_the_chunk_while_read_is_no_crash() -> None:
    """A value whose truth runs code that empties the chunk's dicts: the compiled read of a decoded chunk
    leaves such a value to the general read, which holds what it found, so it ends as the twin's does."""
    outcomes = []
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        function: dict = {"arguments": _fresh("{\"a\": 1}")}
        entry: dict = {"index": 0, "function": function}
        delta: dict = {"content": _Truth(False, emptying=True), "tool_calls": [entry]}
        choice: dict = {"index": 0, "delta": delta}
        chunk: dict = {"id": _fresh("r1"), "choices": [choice]}
        adapter = _chat(base, {0: (0, "call", 0)}, "f", "r1", False)
        _Truth.victims = [chunk, choice, delta, entry, function]
        try:
            outcomes.append(adapter.chunk(chunk))
        except RuntimeError as exc:  # a dict that changed while it was read
            outcomes.append(type(exc))
        finally:
            _Truth.victims = []
    assert outcomes[0] == outcomes[1]


def test_each_fast_test_takes_its_dominant_event() -> None:
    chat = {"id": "r1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "x"}}]}}]}
    test_chat_fast_tests_agree.hypothesis.inner_test(items=[(chat, None, 0, False)], finished=False, response="r1",
                                                     named=True)
    for base in (_backend.fastpath_c.AnthropicFast, _fastpath_py.AnthropicFast):
        adapter = _anthropic(base, {1: anthropic._TOOL}, False)
        event = {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{"}}
        assert adapter.chunk(event) == (1, "{") and adapter._blocks[1].streamed
        assert adapter.chunk(event, text="zz") == (1, "zz")


class _Message(pydantic.BaseModel):
    """A LangChain ``AIMessageChunk``'s shape (the fields ``chunk`` reads), as a pydantic object."""

    type: Any = None
    content: Any = None
    tool_call_chunks: Any = None
    response_metadata: Any = None
    additional_kwargs: Any = None
    chunk_position: Any = None


#: ``response_metadata`` dicts: the usual (model, provider), finishes of every provider, Responses objects
METADATA = st.dictionaries(
    st.sampled_from(["model_name", "model_provider", "finish_reason", "stop_reason", "done_reason", "object", "status",
                     "incomplete_details"]),
    st.one_of(st.none(), st.integers(0, 1), st.sampled_from(["openai", "stop", "response", "completed", "in_progress",
                                                             "incomplete", "tool_calls"]),
              st.just({"reason": "content_filter"})), max_size=4)


def _langchain(base: type) -> Any:
    """A ``LangChainFast`` of ``base`` with the adapter's hooks, streaming call ``("tool", 0)`` at index 0."""
    class Adapter(base, langchain.Adapter):  # type: ignore[misc, valid-type]
        __init__ = langchain.LangChainAdapter.__init__
        _finishes = langchain.LangChainAdapter._finishes
        _reasons = langchain.LangChainAdapter._reasons

    adapter = Adapter()
    adapter._slots(("tool", 0))
    adapter._calls[("tool", 0)] = object()
    adapter._current[0] = ("tool", 0)
    return adapter


@given(metadata=METADATA)
def test_a_metadata_dict_that_finishes_is_never_taken(metadata: dict) -> None:
    """The fast test reads a dict's finish itself: wherever the adapter's general way finds a finish (or
    raises on a malformed one), the fast test declines."""
    try:
        finishes = langchain._finish_of(metadata) is not None
    except langchain.ProviderProtocolError:
        finishes = True
    assert not finishes or _fastpath_py._may_finish(metadata)
    for base in (_backend.fastpath_c.LangChainFast, _fastpath_py.LangChainFast):
        adapter = _langchain(base)
        message = _Message(type="AIMessageChunk", content="", tool_call_chunks=[{"index": 0, "args": "x"}],
                           response_metadata=metadata)
        assert (adapter.chunk(message) is None) == _fastpath_py._may_finish(metadata) or not metadata


def langchain_items() -> st.SearchStrategy:
    entry = st.fixed_dictionaries({}, optional={"index": VALUES, "id": VALUES, "name": VALUES, "args": VALUES})
    fields = st.fixed_dictionaries({"type": st.sampled_from(["AIMessageChunk", "ai", "tool"])}, optional={
        "content": st.one_of(VALUES, st.just("")), "tool_call_chunks": st.one_of(st.lists(entry, max_size=2), VALUES),
        "response_metadata": st.one_of(st.just({}), METADATA, st.just(SimpleNamespace(finish_reason="stop"))),
        "additional_kwargs": st.one_of(st.just({}), st.just({"reasoning_content": "r"}), st.just({"x": 1})),
        "chunk_position": st.sampled_from([None, "last"])})
    return st.one_of(fields.map(lambda d: SimpleNamespace(**d)), fields.map(lambda d: _Message(**d)), VALUES)


@given(item=langchain_items(), finished=st.booleans(), on_last=st.booleans(), known=st.booleans())
def test_langchain_fast_tests_agree(item: Any, finished: bool, on_last: bool, known: bool) -> None:
    from argstream.providers._common import Slots

    seen = []
    for base in (_backend.fastpath_c.LangChainFast, _fastpath_py.LangChainFast):
        class Adapter(base):  # type: ignore[misc, valid-type]
            _finishes = langchain.LangChainAdapter._finishes
            _reasons = langchain.LangChainAdapter._reasons

        adapter = Adapter()
        adapter._slots = Slots()
        adapter._slots(("tool", 0))
        adapter._calls = {("tool", 0): object()} if known else {}
        adapter._current = {0: ("tool", 0), 1: ("tool", 9)}
        adapter._finished, adapter._finish_on_last, adapter._last_call = finished, on_last, None
        seen.append((adapter.chunk(item), adapter._last_call))
    assert seen[0] == seen[1]
    if seen[0][0] is not None:
        assert getattr(item, "type", None) == "AIMessageChunk" and not finished


@pytest.mark.parametrize("shape", [SimpleNamespace, _Message])
def test_langchain_fast_test_takes_its_dominant_item(shape: Any) -> None:
    """The item ``stream()`` yields for an argument delta is taken; a finish or reasoning beside it is not."""
    for base in (_backend.fastpath_c.LangChainFast, _fastpath_py.LangChainFast):
        adapter = _langchain(base)
        fields = {"type": "AIMessageChunk", "content": "", "tool_call_chunks": [{"index": 0, "args": "x"}],
                  "response_metadata": {}, "additional_kwargs": {}}
        assert adapter.chunk(shape(**fields)) == (0, "x") and adapter._last_call == ("tool", 0)
        assert adapter.chunk(shape(**{**fields, "response_metadata": {"finish_reason": "tool_calls"}})) is None
        usual = {"model_name": "gpt-test", "model_provider": "openai"}
        assert adapter.chunk(shape(**{**fields, "response_metadata": usual})) == (0, "x")
        done = {"object": "response", "status": "completed"}
        assert adapter.chunk(shape(**{**fields, "response_metadata": done})) is None
        assert adapter.chunk(shape(**{**fields, "additional_kwargs": {"reasoning_content": "hm"}})) is None
        assert adapter.chunk(shape(**{**fields, "content": "text"})) is None


@dataclasses.dataclass
class _PartDelta:
    """pydantic-ai's ``PartDeltaEvent`` shape (a dataclass, as pydantic-ai's events are)."""

    index: Any = None
    delta: Any = None
    event_kind: Any = "part_delta"


@dataclasses.dataclass
class _ToolCallDelta:
    tool_name_delta: Any = None
    args_delta: Any = None
    tool_call_id: Any = None
    part_delta_kind: Any = "tool_call"


def pydantic_ai_items() -> st.SearchStrategy:
    kinds = st.sampled_from(["tool_call", "text", "thinking", None])
    delta = st.builds(_ToolCallDelta, tool_name_delta=st.one_of(VALUES, st.just("")), args_delta=VALUES,
                      tool_call_id=st.sampled_from([None, "", "c1", "c2"]), part_delta_kind=kinds)
    delta = st.one_of(delta, delta.map(lambda d: SimpleNamespace(**vars(d))), delta.map(vars), VALUES)
    event = st.builds(_PartDelta, index=VALUES, delta=delta,
                      event_kind=st.sampled_from(["part_delta", "part_start", "part_end", None]))
    return st.one_of(event, event.map(lambda e: SimpleNamespace(**vars(e))), event.map(vars), VALUES)


def _pydantic_ai(base: type, parts: dict[int, tuple[int, str]]) -> Any:
    from argstream.providers._common import Slots

    class Adapter(base):  # type: ignore[misc, valid-type]
        pass

    adapter = Adapter()
    adapter._slots = Slots()
    adapter._parts = {}
    for position, (kind, call_id) in parts.items():
        state = adapter._parts[position] = pydantic_ai._Part(kind)
        state.id = call_id
        adapter._slots(position)
    return adapter


@given(item=pydantic_ai_items(), parts=st.dictionaries(
    st.integers(-1, 3), st.tuples(st.integers(0, 3), st.sampled_from(["", "c1"])), max_size=3))
def test_pydantic_ai_fast_tests_agree(item: Any, parts: dict) -> None:
    seen = [_pydantic_ai(base, parts).chunk(item)
            for base in (_backend.fastpath_c.PydanticAIFast, _fastpath_py.PydanticAIFast)]
    assert seen[0] == seen[1]
    if seen[0] is not None:
        assert type(item) is not dict and parts[item.index][0] == pydantic_ai._TOOL


def test_pydantic_ai_fast_test_takes_its_dominant_event() -> None:
    """A started call's argument delta is taken; one that names the call or brings another id is not."""
    for base in (_backend.fastpath_c.PydanticAIFast, _fastpath_py.PydanticAIFast):
        adapter = _pydantic_ai(base, {0: (pydantic_ai._TEXT, ""), 1: (pydantic_ai._TOOL, "c1")})
        assert adapter.chunk(_PartDelta(1, _ToolCallDelta(args_delta="{", tool_call_id="c1"))) == (1, "{")
        assert adapter.chunk(_PartDelta(1, _ToolCallDelta(args_delta="{"))) == (1, "{")
        assert adapter.chunk(_PartDelta(1, _ToolCallDelta(args_delta="{", tool_call_id="c2"))) is None
        assert adapter.chunk(_PartDelta(1, _ToolCallDelta(args_delta="{", tool_name_delta="x"))) is None
        assert adapter.chunk(_PartDelta(1, _ToolCallDelta(args_delta=""))) is None
        assert adapter.chunk(_PartDelta(0, _ToolCallDelta(args_delta="{"))) is None
        assert adapter.chunk(_PartDelta(2, _ToolCallDelta(args_delta="{"))) is None
        assert adapter.chunk(vars(_PartDelta(1, _ToolCallDelta(args_delta="{")))) is None


def _responses(base: type, items: list) -> Any:
    """A ``ResponsesFast`` of ``base`` with open items ``(kind, item_id)`` at output indexes 0, 1, ..."""
    class Adapter(base):  # type: ignore[misc, valid-type]
        pass

    adapter = Adapter()
    made = [_Item(base, n, kind, item_id, None) for n, (kind, item_id) in enumerate(items)]
    adapter._by_output = dict(enumerate(made))
    adapter._by_id = {one.item_id: one for one in made if one.item_id is not None}
    return adapter


@dataclasses.dataclass
class _Raw:
    """The Agents SDK's ``RawResponsesStreamEvent`` shape."""

    data: Any = None
    type: Any = "raw_response_event"


def agents_items() -> st.SearchStrategy:
    event = st.fixed_dictionaries({}, optional={
        "type": st.sampled_from(["response.function_call_arguments.delta", "response.output_text.delta"]),
        "item_id": st.one_of(VALUES, st.just(openai_agents.PLACEHOLDER_ID)), "output_index": VALUES, "delta": VALUES})
    data = st.one_of(event, event.map(lambda d: SimpleNamespace(**d)), VALUES)
    raw = st.builds(_Raw, data=data, type=st.sampled_from(["raw_response_event", "run_item_stream_event", None]))
    return st.one_of(raw, raw.map(vars), VALUES)


@given(item=agents_items(), items=st.lists(st.tuples(st.sampled_from(["function_call", "custom_tool_call"]),
                                                      st.sampled_from([None, "fc_1", "fc_2"])), max_size=3))
def test_agents_fast_tests_agree(item: Any, items: list) -> None:
    seen = []
    for base, responses in ((_backend.fastpath_c.AgentsFast, _backend.fastpath_c.ResponsesFast),
                            (_fastpath_py.AgentsFast, _fastpath_py.ResponsesFast)):
        class Adapter(base):  # type: ignore[misc, valid-type]
            pass

        inner = _responses(responses, items)
        adapter = Adapter()
        adapter._responses = inner
        got = adapter.chunk(item)
        seen.append((got, [i.sent for i in inner._by_output.values()]))
    assert seen[0] == seen[1]


def test_agents_fast_test_reads_converted_items_by_position() -> None:
    """An item converted from Chat Completions (the placeholder id) is found by its ``output_index``."""
    for base, responses in ((_backend.fastpath_c.AgentsFast, _backend.fastpath_c.ResponsesFast),
                            (_fastpath_py.AgentsFast, _fastpath_py.ResponsesFast)):
        class Adapter(base):  # type: ignore[misc, valid-type]
            pass

        adapter = Adapter()
        adapter._responses = _responses(responses, [("function_call", None)])
        event = {"type": "response.function_call_arguments.delta", "item_id": openai_agents.PLACEHOLDER_ID,
                 "output_index": 0, "delta": "{"}
        for data in (event, SimpleNamespace(**event)):
            assert adapter.chunk(_Raw(data)) == (0, "{")
        assert adapter.chunk(_Raw({**event, "item_id": "fc_9"})) is None
        assert adapter.chunk(_Raw(event, type="run_item_stream_event")) is None


class _Emptying(str):
    """A key whose comparison empties the dicts of the item being read, and drops their values."""

    victims: list[dict] = []

    def __eq__(self, other: object) -> bool:
        for victim in _Emptying.victims:
            victim.clear()
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _fresh(text: str) -> str:
    return "".join(list(text))  # a str held by the item alone (not interned)


def _emptied(adapter: Any, item: Any, victims: list[dict]) -> Any:
    """What ``adapter.chunk(item)`` gives while an ``_Emptying`` key may empty ``victims``."""
    _Emptying.victims = victims
    try:
        return adapter.chunk(item)
    except RuntimeError as exc:  # a dict that changed while it was read
        return type(exc)
    finally:
        _Emptying.victims = []


@pytest.mark.parametrize("level", ["chunk", "choice", "entry", "function"])
def test_a_key_that_empties_the_chat_item_mid_read_is_no_crash(level: str) -> None:
    """A key equal to a field the test reads (a ``str`` subclass) runs its ``__eq__`` during the lookup,
    and that code may empty the very dicts being read: every value found before is held, so the read
    ends as the twin's does (taken, declined, or the dict's own error) and never reads a freed object."""
    outcomes = []
    for base in (_backend.fastpath_c.ChatFast, _fastpath_py.ChatFast):
        function: dict = {"arguments": _fresh("{\"a\": 1}")}
        entry: dict = {"index": 0, "function": function}
        choice: dict = {"index": 0, "delta": {"tool_calls": [entry]}}
        chunk: dict = {"id": _fresh("r1"), "choices": [choice]}
        where, name = {"chunk": (chunk, "usage"), "choice": (choice, "finish_reason"), "entry": (entry, "id"),
                       "function": (function, "name")}[level]
        where[_Emptying(name)] = None
        adapter = _chat(base, {0: (0, "call", 0)}, "f", "r1", False)
        outcomes.append(_emptied(adapter, chunk, [chunk, choice, entry, function]))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("level", ["event", "delta"])
def test_a_key_that_empties_the_anthropic_item_mid_read_is_no_crash(level: str) -> None:
    outcomes = []
    for base in (_backend.fastpath_c.AnthropicFast, _fastpath_py.AnthropicFast):
        delta: dict = {"type": _fresh("input_json_delta")}
        event: dict = {"type": _fresh("content_block_delta"), "delta": delta}
        if level == "event":
            event[_Emptying("index")] = 1
            delta["partial_json"] = _fresh("{\"a\"")
        else:
            event["index"] = 1
            delta[_Emptying("partial_json")] = _fresh("{\"a\"")
        adapter = _anthropic(base, {1: anthropic._TOOL}, False)
        outcomes.append(_emptied(adapter, event, [event, delta]))
    assert outcomes[0] == outcomes[1]


def _piece(value: Any = "ab", path: Any = "$.content", flag: Any = True) -> dict:
    """A Vertex chunk of one ``partialArgs`` piece (``value`` at ``path``, ``willContinue: flag``)."""
    piece = {"jsonPath": path, "stringValue": value, "willContinue": flag}
    return {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {
        "partialArgs": [piece], "willContinue": True}}]}}], "usageMetadata": {}, "responseId": "r1"}


GEMINI_VALUES = st.one_of(VALUES, st.sampled_from(["$.content", "$.path", "a\"b\n\\", "é\U0001f600", "</x>"]))
GEMINI_PIECES = st.fixed_dictionaries({}, optional={
    "jsonPath": st.sampled_from(["$.content", "$.path", "$", 1, None]), "stringValue": GEMINI_VALUES,
    "willContinue": st.sampled_from([True, False, 1, None]), "numberValue": st.just(1)})


def gemini_items() -> st.SearchStrategy:
    """Vertex chunks: the dominant one (a piece that continues ``$.content``) with any one level changed,
    and chunks of random fields."""
    call = st.fixed_dictionaries({}, optional={"partialArgs": st.one_of(st.lists(GEMINI_PIECES, max_size=2), VALUES),
                                               "willContinue": st.sampled_from([True, False, "true"]),
                                               "name": st.just("f")})
    part = st.fixed_dictionaries({}, optional={"functionCall": st.one_of(call, VALUES),
                                               "thoughtSignature": st.just("s"), "text": st.just("t")})
    content = st.fixed_dictionaries({}, optional={"role": st.just("model"),
                                                  "parts": st.one_of(st.lists(part, max_size=2), VALUES)})
    candidate = st.fixed_dictionaries({}, optional={"content": st.one_of(content, VALUES), "index": st.just(0),
                                                    "finishReason": st.sampled_from(["STOP", None]),
                                                    "finish_reason": st.sampled_from(["STOP", None])})
    random = st.fixed_dictionaries({}, optional={"candidates": st.one_of(st.lists(candidate, max_size=2), VALUES),
                                                 "responseId": st.sampled_from(["r1", None, ""]),
                                                 "response_id": st.just("r1"), "usageMetadata": st.just({})})

    @st.composite
    def changed(draw: Any) -> Any:
        item = _piece(draw(st.one_of(st.text(min_size=1, max_size=4), GEMINI_VALUES)),
                      draw(st.sampled_from(["$.content", "$.content", "$.content", "$.path", 7])),
                      draw(st.sampled_from([True, True, True, False, 1])))
        candidate = item["candidates"][0]
        call = candidate["content"]["parts"][0]["functionCall"]
        levels = [item, candidate, candidate["content"], candidate["content"]["parts"][0], call, call["partialArgs"][0]]
        level = draw(st.integers(0, len(levels) - 1))
        how = draw(st.sampled_from([0, 0, 0, 0, 0, 1, 2, 3, 4, 5]))  # half of them unchanged
        target = levels[level]
        if how == 1:
            target[draw(st.sampled_from(["finishReason", "finish_reason", "extra", "name", "response_id"]))] = "x"
        elif how == 2 and target:
            del target[draw(st.sampled_from(sorted(target)))]
        elif how == 3:
            levels[level - 1 if level else 0].clear()
        elif how == 4:
            keyed = {_Key(k): v for k, v in target.items()}
            target.clear()
            target.update(keyed)
        elif how == 5:
            target.update({**_NEAR, 1: 2})
        return item

    return st.one_of(changed(), changed(), changed(), random, VALUES)


class _Sinks:
    """What the adapter's ``_open_string`` finds: ``$.content`` open at index 7 (when ``open``), each
    path asked for recorded."""

    def __init__(self, open_: bool) -> None:
        self.open, self.pieces, self.asked = open_, ["first"], []

    def __call__(self, path: str) -> Any:
        self.asked.append(path)
        return (path, 7, self.pieces) if self.open and path == "$.content" else None


def _gemini(base: type, sinks: _Sinks, call: bool, response: Any, finished: bool, kept: bool) -> Any:
    class Adapter(base):  # type: ignore[misc, valid-type]
        def _open_string(self, path: str) -> Any:
            return sinks(path)

    adapter = Adapter()
    adapter._call = (7, "writer") if call else None
    adapter._response_id, adapter._finished = response, finished
    adapter._sink = ("$.content", 7, sinks.pieces) if kept and sinks.open else None
    return adapter


@given(items=st.lists(st.tuples(gemini_items(), st.one_of(st.none(), st.sampled_from(["zz", "", "q\"\n"]))),
                      min_size=1, max_size=3),
       call=st.booleans(), response=st.sampled_from([None, "r1"]), finished=st.booleans(), open_=st.booleans(),
       kept=st.booleans())
def test_gemini_fast_tests_agree(items: list, call: bool, response: Any, finished: bool, open_: bool,
                                 kept: bool) -> None:
    """On a run of Vertex chunks: the same answers, the same pieces appended to the open string, the
    same paths asked of the adapter, the same ``_finished`` and ``_sink`` after each."""
    seen = []
    for base in (_backend.fastpath_c.GeminiFast, _fastpath_py.GeminiFast):
        sinks = _Sinks(open_)
        adapter = _gemini(base, sinks, call, response, finished, kept)
        run = []
        for item, text in items:
            got = adapter.chunk(item) if text is None else adapter.chunk(item, text=text)
            run.append((got, list(sinks.pieces), list(sinks.asked), adapter._finished, adapter._sink))
        seen.append(run)
    assert seen[0] == seen[1]
    for got, pieces, _, _, _ in seen[0]:
        if got is not None:
            index, text = got
            assert index == 7 and text == json.dumps(pieces[-1], ensure_ascii=False)[1:-1]


def test_gemini_fast_test_takes_a_continued_piece() -> None:
    for base in (_backend.fastpath_c.GeminiFast, _fastpath_py.GeminiFast):
        sinks = _Sinks(True)
        adapter = _gemini(base, sinks, True, "r1", True, False)
        assert adapter.chunk(_piece("a\"b")) == (7, 'a\\"b')  # escaped as the argument text has it
        assert adapter.chunk(_piece("c")) == (7, "c") and sinks.asked == ["$.content"]  # the sink is kept
        assert sinks.pieces == ["first", "a\"b", "c"] and adapter._finished is False
        assert adapter.chunk(_piece("d"), text="e\n") == (7, "e\\n") and sinks.pieces[-1] == "e\n"
        assert adapter.chunk(_piece("d", "$.path")) is None and sinks.asked == ["$.content", "$.path"]
        assert adapter.chunk(_piece("d", flag=False)) is None  # the closing piece: the general way's
        unread = _gemini(base, _Sinks(True), True, None, False, True)
        assert unread.chunk(_piece()) is None  # a response id not read yet: the general way reads it
        assert unread.chunk({k: v for k, v in _piece().items() if k != "responseId"}) == (7, "ab")


@pytest.mark.parametrize("level", ["chunk", "candidate", "call", "piece"])
def test_a_key_that_empties_the_gemini_item_mid_read_is_no_crash(level: str) -> None:
    outcomes = []
    for base in (_backend.fastpath_c.GeminiFast, _fastpath_py.GeminiFast):
        item = _piece(_fresh("abc"), _fresh("$.content"))
        candidate = item["candidates"][0]
        call = candidate["content"]["parts"][0]["functionCall"]
        piece = call["partialArgs"][0]
        where, name = {"chunk": (item, "candidates"), "candidate": (candidate, "content"),
                       "call": (call, "partialArgs"), "piece": (piece, "jsonPath")}[level]
        where[_Emptying(name)] = where.pop(name)
        sinks = _Sinks(True)
        adapter = _gemini(base, sinks, True, "r1", False, False)
        outcomes.append((_emptied(adapter, item, [item, candidate, call, piece]), list(sinks.pieces)))
    assert outcomes[0] == outcomes[1]


# -- Gemini: a lone text part, whole calls ---------------------------------------------------------------

_USAGE = st.recursive(st.one_of(st.none(), st.integers(0, 10**9), st.booleans(), st.floats(allow_nan=False),
                                st.text(max_size=3)),
                      lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner,
                                                                                  max_size=2),
                      max_leaves=6)


def _deep(depth: int) -> Any:
    value: Any = 1
    for n in range(depth):
        value = [value] if n % 2 else {"d": value}
    return value


@st.composite
def gemini_whole_items(draw: Any) -> Any:
    """A chunk of one text part or of whole calls, with a finish or not, then one level changed (or not)."""
    if draw(st.booleans()):
        part: dict[str, Any] = {"text": draw(st.sampled_from(["hi", "", "é\n", 5]))}
        for key, values in (("thought", [True, False, "x", 0]), ("thoughtSignature", ["s", "", None]),
                            ("thought_signature", ["s", ""]), ("functionCall", [{"name": "f", "args": {}}])):
            if draw(st.integers(0, 5)) == 0:
                part[key] = draw(st.sampled_from(values))
        parts = [part]
    else:
        parts = []
        for n in range(draw(st.integers(1, 2))):
            call: dict[str, Any] = {"name": draw(st.sampled_from([f"tool_{n}", "", 3])),
                                    "args": draw(st.sampled_from([{"a": 1}, {"p": "\ud800"}, {}, [1], None]))}
            if draw(st.booleans()):
                call["id"] = draw(st.sampled_from(["id-1", "id-2", "", 7, None]))
            parts.append({"functionCall": call})
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if draw(st.booleans()):
        candidate["finishReason"] = draw(st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY", "", 5]))
    item: dict[str, Any] = {"candidates": [candidate]}
    if draw(st.booleans()):
        item["responseId"] = draw(st.sampled_from(["r1", "r2", "", None, 4]))
    if draw(st.booleans()):
        item["usageMetadata"] = draw(st.one_of(_USAGE, st.sampled_from([(1, 2), {3: 4}, {"a": {1, 2}},
                                                                         _deep(31), _deep(40)])))
    levels = [item, candidate, candidate["content"], parts[0], parts[0].get("functionCall")]
    _change_level(draw, levels[draw(st.integers(0, 4))],
                  ["finish_reason", "response_id", "usage_metadata", "extra", "id"])
    return item


def _change_level(draw: Any, level: Any, names: list[str]) -> None:
    """One level of a wire item changed, or not: a field set to ``"x"``, a field taken out, its keys made
    ``str`` subclasses, or keys near the fields the tests read added."""
    how = draw(st.sampled_from([0, 0, 0, 1, 2, 3, 4]))
    if type(level) is not dict:
        return
    if how == 1:
        level[draw(st.sampled_from(names))] = "x"
    elif how == 2 and level:
        del level[draw(st.sampled_from(sorted(level)))]
    elif how == 3:
        keyed = {_Key(k): v for k, v in level.items()}
        level.clear()
        level.update(keyed)
    elif how == 4:
        level.update(_NEAR)


def _whole_adapter(base: type, call: bool, response: Any, run: Any, finished: bool) -> Any:
    from argstream.providers import gemini
    from argstream.providers._common import WholeCallAdapter

    class Adapter(base, WholeCallAdapter):  # type: ignore[misc, valid-type]
        _text_read = gemini.GeminiAdapter._text_read

        def _finish(self, reason: str, meta: dict[str, Any]) -> Any:
            return ("finished", reason, meta, self._response_calls)

    adapter = Adapter()
    WholeCallAdapter.__init__(adapter)
    adapter.whole_values = True
    adapter._call = (7, "writer") if call else None
    adapter._response_id, adapter._finished, adapter._sink = response, finished, None
    if run is not None:
        adapter._text, adapter._next_index = run, 3
    return adapter


@given(items=st.lists(st.tuples(gemini_whole_items(), st.sampled_from([None, None, "zz"]), st.booleans()),
                      min_size=1, max_size=4),
       call=st.booleans(), response=st.sampled_from([None, "r0"]), run=st.sampled_from([None, "message", "reasoning"]),
       finished=st.booleans())
def test_gemini_text_and_call_tests_agree(items: list, call: bool, response: Any, run: Any, finished: bool) -> None:
    """On a run of chunks: the same answers of ``text_chunk`` and ``call_chunk``, and the same state of
    the adapter after each (its text run, indexes, numbered calls, response id and flags)."""
    from argstream.events import Message, Reasoning

    opened = None if run is None else (2, Message if run == "message" else Reasoning)
    seen = []
    for base in (_backend.fastpath_c.GeminiFast, _fastpath_py.GeminiFast):
        adapter = _whole_adapter(base, call, response, opened, finished)
        out = []
        for item, text, calls in items:
            got = adapter.call_chunk(item) if calls else adapter.text_chunk(item, text=text)
            out.append((got, adapter._text, adapter._next_index, adapter._calls, adapter._response_calls,
                        adapter._response_id, adapter._finished))
        seen.append(out)
    assert seen[0] == seen[1]


def test_gemini_whole_tests_take_their_chunks() -> None:
    from argstream.events import Message, Reasoning

    text = {"candidates": [{"content": {"parts": [{"text": "hi"}], "role": "model"}, "index": 0}], "responseId": "r1"}
    thought = {"candidates": [{"content": {"parts": [{"text": "hm", "thought": True}]}}]}
    usage = {"promptTokenCount": 3, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 3}]}
    calls = {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"a": 1}}},
                                                   {"functionCall": {"name": "g", "args": {}, "id": "x"}}]},
                             "finishReason": "STOP"}], "usageMetadata": usage, "responseId": "r1"}
    for base in (_backend.fastpath_c.GeminiFast, _fastpath_py.GeminiFast):
        adapter = _whole_adapter(base, False, None, None, True)
        assert adapter.text_chunk(text) == (0, "hi", 0) and adapter._text == (0, Message)
        assert adapter._response_id == "r1" and adapter._finished is False
        assert adapter.text_chunk(text, text="yo") == (0, "yo", 0)
        assert adapter.text_chunk(thought) is None  # another kind of text: the general way flushes the run
        closed, whole, end = adapter.call_chunk(calls)
        assert closed == 0 and adapter._text is None
        assert whole == [(1, "r1-call-0", "f", {"a": 1}, {"id_generated": True}), (2, "x", "g", {}, {})]
        assert end == ("finished", "STOP", {"stop_reason": "STOP", "usage": usage}, True)
        assert end[2]["usage"] is not usage and adapter._finished is True and adapter._response_calls is False
        fresh = _whole_adapter(base, False, None, None, False)
        assert fresh.text_chunk(thought) == (0, "hm", 1) and fresh._text == (0, Reasoning)
        for bad in ((1, 2), {3: 4}, _deep(40), {"a": _Key("b")}):
            declined = _whole_adapter(base, False, None, None, False)
            assert declined.call_chunk({**calls, "usageMetadata": bad}) is None  # the general way copies it
            assert declined._calls == 0 and declined._response_id is None


# -- Ollama: a text line, a line of whole calls, the last line ---------------------------------------------


class _Truthless:
    """A value whose truth cannot be asked (a line built by hand, not decoded): the tests decline it."""

    def __bool__(self) -> bool:
        raise RuntimeError("no truth")


_OLLAMA_TEXT = st.sampled_from(["hi", "", "é\n", None, 5, [], _Truthless()])


@st.composite
def ollama_items(draw: Any) -> Any:
    """An NDJSON line of text, of whole calls, or with nothing, ``done`` or not, an error line, or the same
    as an SDK-like object; then one level changed (or not)."""
    message: dict[str, Any] = {"role": "assistant"}
    for key in ("content", "thinking"):
        if draw(st.booleans()):
            message[key] = draw(_OLLAMA_TEXT)
    if draw(st.integers(0, 2)) == 0:
        entries = []
        for n in range(draw(st.integers(0, 2))):
            function: dict[str, Any] = {"name": draw(st.sampled_from([f"tool_{n}", "", None, 3])),
                                        "arguments": draw(st.sampled_from([{"a": 1}, {"p": "\ud800"}, {}, [1],
                                                                           "{}", None]))}
            entry: dict[str, Any] = {"function": draw(st.sampled_from([function, function, None, "f"]))}
            if draw(st.booleans()):
                entry["id"] = draw(st.sampled_from(["id-1", "id-2", "", 7, None]))
            entries.append(draw(st.sampled_from([entry, entry, entry, 5])))
        message["tool_calls"] = draw(st.sampled_from([entries, entries, None, "x"]))
    item: dict[str, Any] = {"model": "m", "message": draw(st.sampled_from([message, message, message, None, "m"]))}
    if draw(st.booleans()):
        item["done"] = draw(st.sampled_from([True, True, False, 1, None, _Truthless()]))
        item["done_reason"] = draw(st.sampled_from(["stop", "length", "load", "unload", "other", None, 5]))
        item["eval_count"] = draw(st.sampled_from([3, None]))
    if draw(st.booleans()):
        item["created_at"] = draw(st.sampled_from(["t0", "t1", "", None]))
    if draw(st.integers(0, 12)) == 0:
        item["error"] = draw(st.sampled_from(["boom", None]))
    _change_level(draw, draw(st.sampled_from([item, message])), ["error", "done", "thinking", "tool_calls", "extra"])
    if draw(st.integers(0, 4)) == 0:  # an SDK-like object: read by the adapter's ``_text_read``
        inner = item.get("message")
        fields = {str(k): v for k, v in item.items() if isinstance(k, str)}
        if type(inner) is dict and all(isinstance(k, str) for k in inner):
            fields["message"] = SimpleNamespace(**{str(k): v for k, v in inner.items()})
        return SimpleNamespace(**fields)
    return item


def _ollama_adapter(base: type, run: Any, created: Any) -> Any:
    from argstream.providers import ollama
    from argstream.providers._common import WholeCallAdapter

    class Adapter(base, WholeCallAdapter):  # type: ignore[misc, valid-type]
        _text_read = ollama.OllamaAdapter._text_read

        def _finished(self, item: Any, done_reason: Any) -> Any:
            end = ("finished", done_reason, self._response_calls)
            self._response_calls = False
            return end

    adapter = Adapter()
    WholeCallAdapter.__init__(adapter)
    adapter.whole_values = True
    adapter._created, adapter._empty, adapter._held = created, True, "held"
    if run is not None:
        adapter._text, adapter._next_index = run, 3
    return adapter


@given(items=st.lists(st.tuples(ollama_items(), st.sampled_from([None, None, "zz"]), st.booleans()),
                      min_size=1, max_size=4),
       run=st.sampled_from([None, "message", "reasoning"]), created=st.sampled_from([None, "t9"]))
def test_ollama_text_and_call_tests_agree(items: list, run: Any, created: Any) -> None:
    """On a run of lines: the same answers of ``text_chunk`` and ``call_chunk`` (never an exception), and
    the same state of the adapter after each (its text run, indexes, numbered calls, first
    ``created_at``, flags and the held ``Finished``)."""
    from argstream.events import Message, Reasoning

    opened = None if run is None else (2, Message if run == "message" else Reasoning)
    seen = []
    for base in (_backend.fastpath_c.OllamaFast, _fastpath_py.OllamaFast):
        adapter = _ollama_adapter(base, opened, created)
        out = []
        for item, text, calls in items:
            got = adapter.call_chunk(item) if calls else adapter.text_chunk(item, text=text)
            out.append((got, adapter._text, adapter._next_index, adapter._calls, adapter._response_calls,
                        adapter._created, adapter._empty, adapter._held))
        seen.append(out)
    assert seen[0] == seen[1]


def test_ollama_whole_tests_take_their_lines() -> None:
    from argstream.events import Message, Reasoning

    text = {"model": "m", "created_at": "t0", "message": {"role": "assistant", "content": "hi"}, "done": False}
    thought = {"model": "m", "message": {"role": "assistant", "content": "", "thinking": "hm"}, "done": False}
    calls = {"model": "m", "created_at": "t1", "done": False, "message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "f", "arguments": {"a": 1}}}, {"id": "x", "function": {"name": "g", "arguments": {}}}]}}
    last = {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}
    sdk = SimpleNamespace(message=SimpleNamespace(content="yo", thinking=None, tool_calls=None), done=False,
                          error=None, created_at="t2")
    for base in (_backend.fastpath_c.OllamaFast, _fastpath_py.OllamaFast):
        adapter = _ollama_adapter(base, None, None)
        assert adapter.text_chunk(text) == (0, "hi", 0) and adapter._text == (0, Message)
        assert adapter._created == "t0" and adapter._empty is False and adapter._held is None
        assert adapter.text_chunk(text, text="yo") == (0, "yo", 0)
        assert adapter.text_chunk(thought) is None  # another kind of text: the general way flushes the run
        closed, whole, end = adapter.call_chunk(calls)
        assert closed == 0 and adapter._text is None and end is None
        assert whole == [(1, "t0-call-0", "f", {"a": 1}, {"id_generated": True}), (2, "x", "g", {}, {})]
        assert adapter.call_chunk(last) == (None, [], ("finished", "stop", True))
        assert adapter._response_calls is False and adapter._empty is True
        assert adapter.call_chunk({**last, "done_reason": "load"}) is None  # a load response: the general way
        fresh = _ollama_adapter(base, None, None)
        assert fresh.text_chunk(thought) == (0, "hm", 1) and fresh._text == (0, Reasoning)
        assert _ollama_adapter(base, None, None).text_chunk(sdk) == (0, "yo", 0)
        for bad in ({**text, "done": _Truthless()}, {**text, "message": {"content": "a", "thinking": _Truthless()}}):
            declined = _ollama_adapter(base, None, None)
            assert declined.text_chunk(bad) is None and declined._text is None and declined._created is None


@given(st.dictionaries(st.sampled_from(["a", "b", "c", "eval_count", "ä"]) | st.text(max_size=2), VALUES, max_size=6),
       st.lists(st.sampled_from(["a", "b", "c", "eval_count", "ä", "zz"]), max_size=6, unique=True))
def test_present_fields_agree(item: dict[str, Any], names: list[str]) -> None:
    """The usage block read at a response's end: the named fields a dict holds with a value other than
    ``None``, in the names' order, the same on both backends."""
    expected = {name: item[name] for name in names if item.get(name) is not None}
    for present in {_backend.present, _fastpath_py.present}:
        got = present(item, tuple(names))
        assert got == expected and list(got) == list(expected)
