"""The 44 fixtures of other projects' test suites (../shared/recordings-more, read in place, skipped when absent).

Each file must give the calls its ``expected.json`` lists as runnable calls (flushed without an
error, before a non-error ``Finished``), with the finish it states, or the difference that
docs/providers.md ("Differences from recordings-more") documents, listed in ``DIFFERENCES``.
"""

from __future__ import annotations

import pytest

from _provider_runs import FOLDERS, expected_of, finish_count_ok, read_recording, run
from conftest import ROOT

FOLDER = FOLDERS[1]
EXPECTED = expected_of(FOLDER)

# Streams without their final event: every call flushed whole, but the response never finished
# (the driver's Finished(ERROR) for a cut stream), so none is runnable. The flushed calls must
# still be the expected ones.
NO_FINAL_EVENT = {
    "anthropic/litellm__anthropic-code-execution-input-from-deltas.jsonl",
    "anthropic/litellm__anthropic-text-and-tool-index-zero.jsonl",
    "anthropic/litellm__anthropic-code-execution-whole-input.jsonl",
    "anthropic/litellm__anthropic-multiple-tools-no-deltas.jsonl",
    "anthropic/litellm__anthropic-web-search-tool-result-no-extra-tool-calls.jsonl",
    "openai_responses/vercel__openai__parallel-tool-call-wrapper.1@f40afcf0df.chunks.txt",
}
# An incomplete response (an unknown incomplete_details.reason): its finished call is flushed
# whole, but the response ended with Finished(ERROR).
INCOMPLETE_RESPONSE = {
    "openai_responses/vercel__open-responses__issue-18872-unknown-incomplete-reason@e44abd9415.chunks.txt",
}
# The origin's own choice, where argstream reports what the wire carries: (id, name, arguments,
# ok) of each flushed call instead of the expected ones.
WIRE_INSTEAD = {
    "anthropic/vercel__anthropic__anthropic-code-execution-20250825-empty-first-delta@fa8445de76.chunks.txt": [
        ("srvtoolu_empty_first_delta", "text_editor_code_execution", {}, False)],
    "ollama/langchain__ollama-functionName-metadata.jsonl": [
        (None, "magic_function_no_args", {"functionName": "magic_function_no_args"}, True)],
}
DIFFERENCES = NO_FINAL_EVENT | INCOMPLETE_RESPONSE | set(WIRE_INSTEAD)


def same_id(expected: str | None, got: str, metadata: dict) -> bool:
    """The provider's id, or a generated one (flagged) where the wire has none."""
    return got == expected if expected is not None else bool(metadata.get("id_generated"))


@pytest.mark.skipif(not EXPECTED, reason=f"no recordings at {FOLDER}")
@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_fixture(key: str) -> None:
    expected = EXPECTED[key]
    outcome = run(expected["format"], read_recording(FOLDER, key, expected))
    assert finish_count_ok(outcome.events)
    metadata = {id(call): meta for call, meta in outcome.flushed}
    if key in WIRE_INSTEAD:
        got = [(c.id if not m.get("id_generated") else None, c.name, c.arguments, c.error is None)
               for c, m in outcome.flushed]
        assert got == WIRE_INSTEAD[key]
        return
    want = [c for c in expected["tool_calls"] if c["arguments"] is not None and not c.get("invalid_json")]
    if key in NO_FINAL_EVENT or key in INCOMPLETE_RESPONSE:
        assert outcome.runnable == [] and outcome.finished[-1].reason.name == "ERROR"
        calls = [c for c, _ in outcome.flushed if c.error is None]
    else:
        calls = outcome.runnable
        if "finish" in expected:
            assert outcome.finished[-1].reason.name == expected["finish"]
    assert [(c.name, c.arguments) for c in calls] == [(w["name"], w["arguments"]) for w in want]
    assert all(same_id(w["id"], c.id, metadata[id(c)]) for w, c in zip(want, calls))
    for invalid in (c for c in expected["tool_calls"] if c.get("invalid_json")):  # text that is no JSON value
        assert all(c.id != invalid["id"] for c in outcome.runnable)
    if expected["responses"] > 1 and "responses_origin" not in expected:
        assert len(outcome.finished) == expected["responses"]


def test_every_difference_is_documented() -> None:
    text = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    for key in DIFFERENCES:
        assert key.split("/", 1)[1] in text, key
