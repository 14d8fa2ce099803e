"""Every TOML example in docs/policy.md loads, and means what the page says."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from argstream.policy import PolicyWarning, RunMode, evaluate, load_policies

DOC = Path(__file__).resolve().parent.parent / "docs" / "policy.md"
BLOCKS = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("block", BLOCKS)
def test_the_examples_load(block: str) -> None:
    pytest.importorskip("regex")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PolicyWarning)
        assert load_policies(block)


def test_the_quantifier_example() -> None:
    block = next(b for b in BLOCKS if 'match = "any"' in b)
    run = load_policies(block)["fs_modify_file"].run
    assert evaluate(run, {"patterns": [{"paths": ["docs/a", "docs/b"]}]}) is RunMode.UNATTENDED
    assert evaluate(run, {"patterns": [{"paths": ["docs/a"]}, {"paths": ["/etc/passwd"]}]}) is RunMode.ASK
    assert evaluate(run, {"patterns": [{"paths": ["docs/a", "x/.env"]}]}) is RunMode.SKIP
    assert evaluate(run, {"patterns": [{"paths": ["tmp/a", "/etc/passwd"]}]}) is RunMode.UNATTENDED
