"""Issue 22 item 17: every Python example in docs/*.md and the README runs as printed.

Each docs block runs alone, in a fresh interpreter, in an empty folder: it may use nothing the page
does not give (a ``tools.json``, a ``TOOLS``, a ``stream``). The README's blocks build on each other
(the policy example continues the provider one) and run in order in ``test_readme.py``; those that
stand alone (the parser, the schema check) are run alone here too. Blocks that need an optional
package the environment lacks are skipped, never silently passed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import argstream

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(argstream.__file__).parent.parent),
                                                    os.environ.get("PYTHONPATH", "")])}
NEEDS = {"axio": "axio", "pydantic": "pydantic"}  # an import in a block -> the package it needs


def _blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def _examples() -> list:
    out = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        blocks = _blocks(page)
        shared = "".join(b for b in blocks if b.startswith("POLICIES_TOML"))  # a page's shared policy block
        for number, block in enumerate(blocks, 1):
            if block.startswith("# recipe:"):  # a recipe runs after the page's shared block, as the page says
                block = shared + block
            out.append(pytest.param(block, id=f"{page.name}#{number}"))
    readme = _blocks(ROOT / "README.md")
    standalone = [b for b in readme if "anthropic" not in b and "client." not in b]
    assert len(standalone) >= 2  # the parser and the schema examples
    out += [pytest.param(block, id=f"README.md#standalone{n}") for n, block in enumerate(standalone, 1)]
    return out


@pytest.mark.parametrize("block", _examples())
def test_example_runs_as_printed(tmp_path: Path, block: str) -> None:
    for module, package in NEEDS.items():
        if re.search(rf"^\s*(from|import) {module}\b", block, flags=re.M) and importlib.util.find_spec(package) is None:
            pytest.skip(f"needs {package}")
    result = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                            timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_docs_have_python_examples() -> None:
    assert sum(len(_blocks(page)) for page in (ROOT / "docs").glob("*.md")) >= 4
