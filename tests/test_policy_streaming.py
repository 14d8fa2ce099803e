"""``StreamingPolicyState``: decisions as parameters complete, fed from the parser's fragments."""

from __future__ import annotations

import json

import pytest

from argstream import DONE, IncrementalArgParser, ObjectEntry, String, flatten
from argstream.events import ToolCallArgumentProgress
from argstream.policy import ParamCondition, RunMode, RunRule, StreamingPolicyState, make_matcher

ASK, UNATTENDED, EDIT, SKIP = RunMode.ASK, RunMode.UNATTENDED, RunMode.EDIT, RunMode.SKIP


def rule(mode: RunMode, arg: str | None = None, keyword: str | None = None, value: object = None,
         param_type: str | None = None) -> RunRule:
    if arg is None:
        return RunRule(mode)
    return RunRule(mode, ParamCondition(arg, make_matcher(keyword, value, param_type)))  # type: ignore[arg-type]


CREATE = [
    rule(UNATTENDED, "/path", "prefix", "src/", "path"),
    rule(SKIP, "/path", "pattern", r"\.env$", "path"),
    rule(ASK),
]
# A rule that stops a call matches when any path the pointer reaches does (one that grants needs all).
MODIFY = [rule(SKIP, "/patterns/paths", "prefix", "docs/", "path"), rule(ASK)]


class Run:
    """Stream ``chunks`` into a fresh state; remember the fragments of each chunk and the decision after it."""

    def __init__(self, rules: list[RunRule], chunks: list[str], *, flush: bool = False) -> None:
        self.state = StreamingPolicyState(rules)
        parser = IncrementalArgParser()
        self.fragments: list[list] = []
        self.decisions: list[RunMode | None] = []
        for chunk in chunks:
            frags = parser.push(chunk)
            self.fragments.append(frags)
            for f in frags:
                self.state.feed(f)
            self.decisions.append(self.state.resolved)
        if flush:
            self.state.finish(json.loads("".join(chunks)))

    @property
    def decided_at(self) -> int | None:
        """Index of the chunk after which the decision was known."""
        for i, d in enumerate(self.decisions):
            if d is not None:
                return i
        return None

    def fragments_before_decision(self) -> list:
        assert self.decided_at is not None
        return [f for chunk in self.fragments[: self.decided_at + 1] for f in chunk]


def test_decided_right_after_path_completes_before_content_starts() -> None:
    chunks = ['{"pa', 'th": "src/', 'main.rs"', ', "content": "fn ', "main() {}", '"}']
    run = Run(CREATE, chunks)
    assert run.decided_at == 2
    assert run.state.resolved is UNATTENDED
    before = run.fragments_before_decision()
    assert before[-1] == ObjectEntry("path", DONE)
    assert not any(flatten(f)[0][:1] == ("content",) for f in before)


def test_waiting_while_path_streams() -> None:
    # "src/" is already there, but the string may still become "src/../etc": wait for its end.
    chunks = ['{"path": "', "src/", "..", "/etc/passwd", '"', "}"]
    run = Run(CREATE, chunks)
    assert run.decisions[:4] == [None, None, None, None]
    assert run.decided_at == 4
    assert run.state.resolved is ASK  # src/../etc/passwd is not under src/


def test_content_before_path_waits() -> None:
    text = json.dumps({"content": "x" * 500, "path": "src/lib.rs"})
    chunks = [text[i:i + 16] for i in range(0, len(text), 16)]
    run = Run(CREATE, chunks)
    path_done = next(i for i, frags in enumerate(run.fragments) if ObjectEntry("path", DONE) in frags)
    assert run.decided_at == path_done
    assert all(d is None for d in run.decisions[:path_done])
    assert run.state.resolved is UNATTENDED


def test_rule_on_a_later_parameter_waits_for_an_earlier_rule() -> None:
    rules = [rule(SKIP, "/force", "const", True), rule(UNATTENDED, "/path", "prefix", "src/", "path"), rule(ASK)]
    run = Run(rules, ['{"path": "src/a"', ', "force": ', "fals", "e", "}"])
    assert run.decisions == [None, None, None, UNATTENDED, UNATTENDED]
    run = Run(rules, ['{"path": "src/a"', ', "force": true', "}"])
    assert run.decisions == [None, SKIP, SKIP]
    rules = [rule(SKIP, "/n", "minimum", 5), rule(UNATTENDED, "/path", "prefix", "src/", "path"), rule(ASK)]
    run = Run(rules, ['{"path": "src/a"', ', "n": 3', "}"])
    assert run.decisions == [None, None, UNATTENDED]  # a number ends only at the next delimiter


def test_absent_optional_parameter_is_known_at_the_root_done() -> None:
    rules = [rule(SKIP, "/force", "const", True), rule(UNATTENDED)]
    run = Run(rules, ['{"path": "a"', ', "content": "b"', "}"])
    assert run.decisions == [None, None, UNATTENDED]


def test_nested_existential_match_decides_at_the_first_matching_element() -> None:
    chunks = ['{"path": "x", "patterns": [{"old": "a", "paths": ["lib/a.rs", ',
              '"docs/guide.md"', ', "zzz"]}, {"paths": ["', 'more"]}]}']
    run = Run(MODIFY, chunks)
    assert run.decided_at == 1
    assert run.state.resolved is SKIP
    # "patterns" had not completed: the decision came from the element
    assert ObjectEntry("patterns", DONE) not in run.fragments_before_decision()


def test_nested_elimination_when_the_parameter_ends_without_a_match() -> None:
    chunks = ['{"patterns": [{"paths": ["lib/a.rs"]}, ', '{"paths": ["src/docs/x"]}', "]", ', "path": "x"}']
    run = Run(MODIFY, chunks)
    assert run.decisions == [None, None, ASK, ASK]


def test_a_grant_over_an_array_is_decided_by_the_first_element_that_fails() -> None:
    grant = [rule(UNATTENDED, "/patterns/paths", "prefix", "docs/", "path"), rule(ASK)]
    chunks = ['{"patterns": [{"paths": ["docs/a", ', '"lib/a.rs"', ', "docs/b"]}]', "}"]
    assert Run(grant, chunks).decisions == [None, ASK, ASK, ASK]
    chunks = ['{"patterns": [{"paths": ["docs/a", ', '"docs/b"', ']}]', "}"]
    assert Run(grant, chunks).decisions == [None, None, UNATTENDED, UNATTENDED]


def test_nested_empty_array_reaches_nothing() -> None:
    run = Run(MODIFY, ['{"patterns": []', "}"])
    assert run.decisions == [ASK, ASK]


def test_implicit_ask() -> None:
    rules = [rule(UNATTENDED, "/path", "prefix", "src/", "path"), rule(SKIP, "/n", "minimum", 10)]
    run = Run(rules, ['{"path": "lib/a", ', '"n": 3', "}"])
    assert run.decisions == [None, None, ASK]
    assert run.state.rule_index is None


def test_edit_is_decided_early() -> None:
    rules = [rule(EDIT, "/path", "prefix", "config/", "path"), rule(ASK)]
    run = Run(rules, ['{"path": "config/app.toml", ', '"content": "a = 1"', "}"])
    assert run.decisions[0] is EDIT


def test_no_conditional_rule_resolves_at_construction() -> None:
    assert StreamingPolicyState([rule(SKIP)]).resolved is SKIP
    assert StreamingPolicyState([]).resolved is ASK


def test_flush_fallback_all_at_once() -> None:
    text = json.dumps({"content": "c", "path": "docs/x"})
    whole = Run(CREATE, [text])
    assert whole.decisions == [ASK]
    # No fragments at all: finish() with the complete arguments decides the same way.
    state = StreamingPolicyState(CREATE)
    assert state.resolved is None
    assert state.finish(json.loads(text)) is ASK
    assert state.finish({"path": "src/a"}) is UNATTENDED


def test_flush_fallback_decides_absent_parameters() -> None:
    rules = [rule(SKIP, "/force", "const", True), rule(UNATTENDED)]
    state = StreamingPolicyState(rules)
    assert state.feed_parameter("path", "a") is None
    assert state.finish() is UNATTENDED


def test_feed_accepts_progress_nested_and_flat_fragments_and_lists() -> None:
    frags = IncrementalArgParser().push('{"path": "src/a.rs", "content": "x"}')
    for wrap in (
        lambda f: ToolCallArgumentProgress("id", "fs_create_file", f),
        lambda f: f,
        flatten,
    ):
        state = StreamingPolicyState(CREATE)
        for f in frags[:2]:
            state.feed(wrap(f))
        assert state.resolved is UNATTENDED
    state = StreamingPolicyState(CREATE)
    assert state.feed(list(frags)) is UNATTENDED


def test_feed_parameter_and_nested_element() -> None:
    state = StreamingPolicyState(MODIFY)
    assert state.feed_parameter("path", "x") is None
    assert state.waiting_for == "patterns"
    assert state.feed_nested_element("patterns", (0, "paths", 0), "lib/a") is None
    assert state.feed_nested_element("patterns", (0, "old"), "docs/x") is None  # not on the pointer
    assert state.feed_nested_element("patterns", (1,), {"paths": ["docs/a"]}) is SKIP
    assert state.waiting_for is None

    state = StreamingPolicyState(MODIFY)
    assert state.feed_nested_element("patterns", (0, "paths", 0), "lib/a") is None
    assert state.feed_parameter("patterns", [{"paths": ["lib/a"]}]) is ASK


def test_string_chunks_of_the_deciding_value_do_not_decide() -> None:
    state = StreamingPolicyState(CREATE)
    assert state.feed(ObjectEntry("path", String("src/"))) is None
    assert state.feed(ObjectEntry("path", String("x"))) is None
    assert state.feed(ObjectEntry("path", DONE)) is UNATTENDED


def test_a_decision_never_rests_on_a_value_a_duplicate_replaced() -> None:
    state = StreamingPolicyState(CREATE)
    state.feed_parameter("path", "src/a")
    assert state.resolved is UNATTENDED
    assert state.feed_parameter("content", "x") is UNATTENDED  # other input is ignored once decided
    assert state.feed_parameter("path", "/etc/passwd") is ASK
    assert state.resolved is ASK and state.revised is UNATTENDED
    assert state.known_params["path"] == "/etc/passwd"


def test_finish_revises_a_decision_the_complete_arguments_contradict() -> None:
    # A duplicate key: json.loads (and so the executed arguments) keep the last value.
    text = '{"path": "src/a", "path": "/etc/passwd"}'
    run = Run(CREATE, [text[:17], text[17:]])
    assert run.decisions[0] is UNATTENDED
    assert run.state.finish(json.loads(text)) is ASK
    assert run.state.revised is UNATTENDED


@pytest.mark.parametrize("size", [1, 2, 3, 7, 50])
def test_decision_is_the_same_for_every_chunk_size(size: int) -> None:
    text = json.dumps({"path": "x", "patterns": [{"paths": ["a", "b"]}, {"paths": ["docs/c"]}], "n": 1})
    run = Run(MODIFY, [text[i:i + size] for i in range(0, len(text), size)])
    assert run.state.resolved is SKIP
    end_of_match = text.index('docs/c"') + len('docs/c"')
    assert run.decided_at == (end_of_match - 1) // size
