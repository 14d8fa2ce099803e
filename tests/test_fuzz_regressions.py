"""Inputs the fuzz targets (fuzz/, docs/fuzzing.md) found: each a test of the defect it showed,
``xfail(strict=True)`` while the defect is open so that its fix is noticed and the mark removed."""

from __future__ import annotations

import sys

import pytest

from argstream.providers import ProviderProtocolError
from argstream.providers.wire import WireDecoder

from conftest import ROOT

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz.targets import TARGETS  # noqa: E402


def decode(chunks: list[bytes], max_event: int) -> tuple[list, str | None]:
    decoder = WireDecoder(max_event=max_event)
    out: list = []
    try:
        for chunk in chunks:
            out += decoder.feed(chunk)
        out += decoder.close()
    except ProviderProtocolError as exc:
        return out, str(exc)
    return out, None


@pytest.mark.xfail(strict=True, reason="WireDecoder checks max_event only on the unfinished tail: a line "
                                       "longer than max_event is refused only when a chunk ends inside it")
@pytest.mark.parametrize(("text", "cuts"), [(b": c\nid: 1\nretry: 5\n\n", (12, 18)), (b'{"a": 12345}\n', (5,))])
def test_wire_line_limit_does_not_depend_on_chunking(text: bytes, cuts: tuple[int, ...]) -> None:
    """fuzz target ``wire``: a line of 8+ characters with ``max_event=7``. Fed whole it decodes (its
    items, or nothing for a field without payload); cut inside that line, the same bytes raise
    ``ProviderProtocolError: line N is longer than 7 characters``. The module doc says a line longer
    than ``max_event`` raises: it must, at every chunking."""
    whole = decode([text], 7)
    bounds = [0, *cuts, len(text)]
    cut = decode([text[a:b] for a, b in zip(bounds, bounds[1:])], 7)
    assert whole[1] is not None and cut[1] is not None, (whole, cut)


# Inputs that once failed a target (target name, the input as the fuzzer saved it); each must pass now.
FIXED: list[tuple[str, bytes]] = []


@pytest.mark.parametrize(("target", "data"), FIXED, ids=[f"{t}-{i}" for i, (t, _) in enumerate(FIXED)])
def test_fixed_crashes_stay_fixed(target: str, data: bytes) -> None:
    TARGETS[target](data)
