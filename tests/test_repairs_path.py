"""Lenient repairs on the way up (issue: open-weight models, part 2): on the progress item of the input
they came from, on the finished call, in its JSON form, in the policy's ``repaired`` mode and in the CLI.

A repaired call's arguments are the parser's guess at what the model meant, so by default it is never run
unasked (``repaired = "ask"``); a policy may loosen or tighten that, per tool or for ``"*"``. Strict
parsing has no repairs and is not affected.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream import EventBuilder
from argstream.errors import Repair
from argstream.policy import CallStatus, PolicyError, RunMode, TurnCoordinator, load_policies
from argstream.stream import ToolCallArgumentProgress, ToolCallFinished, iter_tool_stream

from test_turn_safety import anthropic_message


def stream_of(text: str, chunk: int = 4, name: str = "fs_read") -> list[dict]:
    """An Anthropic stream whose one call's argument text is ``text`` (not necessarily JSON)."""
    items = anthropic_message("m1", [("toolu_1", name, {})], chunk=chunk)
    start = next(i for i, item in enumerate(items) if item["type"] == "content_block_delta")
    deltas = [{"type": "content_block_delta", "index": 0,
               "delta": {"type": "input_json_delta", "partial_json": text[i:i + chunk]}}
              for i in range(0, len(text), chunk)]
    return items[:start] + deltas + [item for item in items[start:] if item["type"] != "content_block_delta"]


ALMOST = "{'path': 'src/a.py', 'recursive': True,}"


@pytest.fixture
def lenient_builder(make_parser: Any) -> Any:
    """An ``EventBuilder`` factory whose parser is the lenient parser of the backend under test."""
    return lambda: EventBuilder(parser_factory=lambda: make_parser(flat=True, lenient=True, catch_duplicate_keys=True))


def test_repairs_ride_on_the_items_of_their_input_and_on_the_finished_call(lenient_builder: Any) -> None:
    items = list(iter_tool_stream(stream_of(ALMOST), "anthropic", builder_factory=lenient_builder))
    progress = [i for i in items if isinstance(i, ToolCallArgumentProgress)]
    finished = [i for i in items if isinstance(i, ToolCallFinished)]
    assert finished[0].arguments == {"path": "src/a.py", "recursive": True}
    kinds = [r.kind for r in finished[0].repairs]
    assert kinds == ["single_quotes", "single_quotes", "single_quotes", "python_literal", "trailing_comma"]
    on_items = [r for i in progress for r in i.repairs]
    assert on_items == list(finished[0].repairs)  # each once, on the first item its input gave, in order
    first = next(i for i in progress if i.repairs)
    assert first.repairs[0] == Repair("single_quotes", 1) and first.path == ("path",)
    assert all(isinstance(r, Repair) for r in finished[0].repairs)
    assert all(ToolCallFinished.from_dict(f.to_dict()) == f for f in finished)
    for item in progress:
        again = type(item).from_dict(json.loads(json.dumps(item.to_dict())))
        assert again == item and again.repairs == item.repairs


def test_strict_parsing_carries_no_repairs(make_parser: Any) -> None:
    strict = lambda: EventBuilder(parser_factory=lambda: make_parser(flat=True, catch_duplicate_keys=True))  # noqa: E731
    items = list(iter_tool_stream(stream_of('{"path": "src/a.py"}'), "anthropic", builder_factory=strict))
    assert all(getattr(i, "repairs", ()) == () for i in items)
    assert "repairs" not in next(i for i in items if isinstance(i, ToolCallArgumentProgress)).to_dict()


def run(policy: str, text: str, lenient: bool = True, answer: bool = True) -> Any:
    prompts: list[Any] = []

    def prompt(call: Any) -> bool:
        prompts.append((call.name, call.repairs))
        return answer

    coordinator = TurnCoordinator(load_policies(policy), prompt=prompt, provider="anthropic", lenient=lenient)
    result = coordinator.run(stream_of(text))
    return result.calls[0], prompts


UNATTENDED = '[tools."*".policy]\nrun = "unattended"\n'


def test_a_repaired_call_is_asked_by_default_even_under_an_unattended_policy() -> None:
    call, prompts = run(UNATTENDED, ALMOST)
    assert call.repairs and prompts == [("fs_read", call.repairs)]
    assert call.status is CallStatus.APPROVED  # the person said yes
    declined, _ = run(UNATTENDED, ALMOST, answer=False)
    assert declined.status is CallStatus.SKIPPED


def test_the_same_call_written_strictly_runs_unattended() -> None:
    call, prompts = run(UNATTENDED, '{"path": "src/a.py", "recursive": true}')
    assert prompts == [] and call.status is CallStatus.APPROVED and call.mode is RunMode.UNATTENDED


@pytest.mark.parametrize("repaired,status,asked", [
    ("unattended", CallStatus.APPROVED, False),
    ("skip", CallStatus.SKIPPED, False),
    ("ask", CallStatus.APPROVED, True),
])
def test_the_policy_says_what_a_repaired_call_gets(repaired: str, status: CallStatus, asked: bool) -> None:
    own = UNATTENDED + f'\n[tools.fs_read.policy]\nrun = "unattended"\nrepaired = "{repaired}"\n'
    call, prompts = run(own, ALMOST)
    assert call.status is status and bool(prompts) is asked
    star = f'[tools."*".policy]\nrun = "unattended"\nrepaired = "{repaired}"\n'
    call, prompts = run(star, ALMOST)
    assert call.status is status and bool(prompts) is asked


def test_repaired_never_loosens_a_stricter_rule() -> None:
    policy = '[tools."*".policy]\nrun = "skip"\nrepaired = "unattended"\n'
    call, prompts = run(policy, ALMOST)
    assert call.status is CallStatus.SKIPPED and prompts == []


@pytest.mark.parametrize("value", ['"yes"', "true", '["ask"]', '"Ask"'])
def test_a_misspelt_repaired_mode_is_a_load_error(value: str) -> None:
    with pytest.raises(PolicyError, match="repaired must be one of"):
        load_policies(f'[tools."*".policy]\nrun = "ask"\nrepaired = {value}\n')


def test_a_misspelt_repaired_key_names_it() -> None:
    with pytest.raises(PolicyError, match="'repaird'.*repaired"):
        load_policies('[tools."*".policy]\nrun = "ask"\nrepaird = "ask"\n')


def test_the_cli_shows_what_it_repaired(tmp_path: Any) -> None:
    from _cli_run import run as cli

    recording = tmp_path / "lenient.jsonl"
    recording.write_text("".join(json.dumps(item) + "\n" for item in stream_of(ALMOST)), encoding="utf-8")
    strict = cli("replay", str(recording), "--style", "off")
    assert strict.status == 1 and "repaired" not in strict.out
    shown = cli("replay", str(recording), "--style", "off", "--lenient")
    assert shown.status == 0, shown.err
    assert "✓ fs_read (repaired JSON: python_literal, single_quotes, trailing_comma)" in shown.out
    policy = tmp_path / "policy.toml"
    policy.write_text(UNATTENDED, encoding="utf-8")
    decided = cli("replay", str(recording), "--style", "off", "--lenient", "--policy", str(policy), "--answer", "yes")
    assert decided.status == 0, decided.err
    assert "repaired JSON (python_literal, single_quotes, trailing_comma)" in decided.out
    assert "policy: unattended" in decided.out  # decided while streaming, then asked: the call was repaired
