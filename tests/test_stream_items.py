"""The one event source: progress items carry path, leaf and completed value; failures are items too."""

from __future__ import annotations

from argstream import Completed, IncompleteJSONError
from argstream.events import (
    ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallArgumentProgress, ToolCallStart,
)
from argstream.fragments import DONE, ArrayItem, ObjectEntry, String
from argstream.stream import ToolCallFailed, ToolCallFinished, ToolStreamState


def _feed(events):
    state = ToolStreamState()
    out = []
    for event in events:
        out += state.feed(event)
    return out


def _call(*chunks, flush=True, index=0):
    events = [Part(index, ToolCall(ToolCallStart("call_1", "fs_write")))]
    events += [Part(index, ToolCall(ArgumentChunk(c))) for c in chunks]
    if flush:
        events.append(Flush(index))
    return events + [Finished(FinishReason.TOOL_USE)]


def test_progress_carries_path_leaf_and_the_value_it_completed() -> None:
    items = _feed(_call('{"path": "src/a', '.py", "tags": ["x"]}', index=2))
    progress = [i for i in items if type(i) is ToolCallArgumentProgress]
    assert [(p.path, p.leaf) for p in progress[:3]] == [
        (("path",), String("src/a")), (("path",), String(".py")), (("path",), DONE)]
    assert progress[2].completed == Completed(("path",), "src/a.py")
    assert progress[2].parameter == "path" and progress[2].index == 2
    item = next(p for p in progress if p.fragment == ObjectEntry("tags", ArrayItem(0, DONE)))
    assert item.completed == Completed(("tags", 0), "x") and item.path == ("tags", 0)
    assert progress[-1].completed == Completed((), {"path": "src/a.py", "tags": ["x"]})


def test_progress_built_by_hand_is_flattened() -> None:
    p = ToolCallArgumentProgress("c", "t", ObjectEntry("a", ArrayItem(0, String("x"))))
    assert p.path == ("a", 0) and p.leaf == String("x") and p.completed is None


def test_invalid_arguments_fail_at_once_and_once() -> None:
    items = _feed(_call('{"path": "a"', ' x', '"more"}'))
    failed = [i for i in items if type(i) is ToolCallFailed]
    assert len(failed) == 1 and failed[0].id == "call_1"
    finished = next(i for i in items if type(i) is ToolCallFinished)
    assert finished.error is failed[0].error
    assert items.index(failed[0]) < items.index(finished)


def test_cut_off_call_fails_with_incomplete_json_error_before_stream_finished() -> None:
    items = _feed(_call('{"path": "a"}', flush=False))
    failed = [i for i in items if type(i) is ToolCallFailed]
    assert len(failed) == 1 and isinstance(failed[0].error, IncompleteJSONError)
    assert not any(type(i) is ToolCallFinished for i in items)
    assert failed[0].error is items[-1].incomplete[0].kind.error
