"""Schema validation while streaming (issue 12): W1 1 MB in 32-character chunks, in one run.

Cases, each consuming every chunk in order:

- ``parse``: the flat parser alone (the baseline);
- ``parse+schema``: the same parser feeding ``SchemaValidator.extend`` per push
  (target: at most 1.5x ``parse``);
- ``parse+aggregate``: the parser feeding ``FragmentAggregator`` (the value builder that
  ``parse+model`` needs for Pydantic's final validation; shown to split its cost);
- ``parse+model``: ``ModelValidator`` for a Pydantic model (typed partials available
  throughout), and one ``model_validate`` at the end;
- ``jsonschema-at-end``: ``json.loads`` of the joined text and one ``jsonschema``
  validation, the non-streaming floor;
- ``pydantic-partial-revalidate``: instructor-style, ``TypeAdapter.validate_json`` of the
  growing buffer with ``experimental_allow_partial`` after every chunk (quadratic);
- ``jiter-partial+model_validate``: ``jiter`` partial parse of the growing buffer and
  ``model_validate`` after every chunk (quadratic).

Under pytest (``pytest benchmarks/bench_schema.py``) each case is a pytest-benchmark
in one group, the quadratic ones for a single round. ``python benchmarks/bench_schema.py``
times them all in one process and prints the ratios to ``parse``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
try:
    import argstream
except ImportError:  # run as a script from a clone: use the working tree
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    import argstream

from argstream.schema import ModelValidator, Schema  # noqa: E402
from data import corpus  # noqa: E402

try:
    import jsonschema
except ImportError:  # pragma: no cover
    jsonschema = None
try:
    import jiter
except ImportError:  # pragma: no cover
    jiter = None
try:
    import pydantic
except ImportError:  # pragma: no cover
    pydantic = None

CORPUS, CHUNK = "W1-1M", 32
W1_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1, "maxLength": 4096, "pattern": "^[^\\u0000]+$"},
        "content": {"type": "string"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
QUADRATIC = ("pydantic-partial-revalidate", "jiter-partial+model_validate")

if pydantic is not None:

    class W1(pydantic.BaseModel):
        """The W1 call as a model (what a user of instructor or pydantic-ai writes)."""

        model_config = pydantic.ConfigDict(extra="forbid")
        path: str = pydantic.Field(min_length=1, max_length=4096)
        content: str

    class W1Partial(pydantic.BaseModel):
        """instructor's ``Partial[W1]``: every field optional, so a prefix validates."""

        path: Optional[str] = None
        content: Optional[str] = None


def parse(chunks: list[str]) -> bool:
    parser = argstream.IncrementalArgParser(flat=True)
    push = parser.push
    for chunk in chunks:
        push(chunk)
    parser.finish()
    return parser.done


def _drive(chunks: list[str], extend: Callable[[Any], Any]) -> None:
    """One flat parser over every chunk, each push's fragments handed to ``extend``."""
    parser = argstream.IncrementalArgParser(flat=True)
    push = parser.push
    for chunk in chunks:
        extend(push(chunk))
    extend(parser.finish())


def parse_aggregate(chunks: list[str]) -> Any:
    agg = argstream.FragmentAggregator()
    _drive(chunks, agg.extend)
    return agg.value


def parse_schema(chunks: list[str], schema: Schema) -> bool | None:
    validator = schema.validator()
    _drive(chunks, validator.extend)
    return validator.valid


def parse_model(chunks: list[str], schema: Schema) -> Any:
    validator = ModelValidator(W1, schema)
    _drive(chunks, validator.extend)
    return validator.result()


def jsonschema_at_end(chunks: list[str], checker: Any) -> bool:
    return checker.is_valid(json.loads("".join(chunks)))


def pydantic_partial_revalidate(chunks: list[str]) -> Any:
    buf, value = "", None
    validate = pydantic.TypeAdapter(W1Partial).validate_json
    for chunk in chunks:
        buf += chunk
        value = validate(buf, experimental_allow_partial=True)
    return value


def jiter_partial_model_validate(chunks: list[str]) -> Any:
    buf, value = "", None
    for chunk in chunks:
        buf += chunk
        value = W1Partial.model_validate(jiter.from_json(buf.encode(), partial_mode="trailing-strings"))
    return value


def cases() -> dict[str, Callable[[list[str]], Any]]:
    """The runnable cases, by name (peers that are not installed are left out)."""
    schema = Schema(W1_SCHEMA)
    out: dict[str, Callable[[list[str]], Any]] = {
        "parse": parse,
        "parse+schema": lambda chunks: parse_schema(chunks, schema),
        "parse+aggregate": parse_aggregate,
    }
    if pydantic is not None:
        model_schema = Schema(W1.model_json_schema())
        out["parse+model"] = lambda chunks: parse_model(chunks, model_schema)
        out["pydantic-partial-revalidate"] = pydantic_partial_revalidate
        if jiter is not None:
            out["jiter-partial+model_validate"] = jiter_partial_model_validate
    if jsonschema is not None:
        checker = jsonschema.Draft202012Validator(W1_SCHEMA)
        out["jsonschema-at-end"] = lambda chunks: jsonschema_at_end(chunks, checker)
    return out


def verify(name: str, result: Any) -> None:
    """Each case saw the whole, valid value."""
    value = corpus(CORPUS).value
    if name in ("parse", "parse+schema", "jsonschema-at-end"):
        assert result is True
    elif name == "parse+aggregate":
        assert result == value
    else:
        assert (result.path, result.content) == (value["path"], value["content"])


ALL = ("parse", "parse+schema", "parse+aggregate", "parse+model", "jsonschema-at-end", *QUADRATIC)


@pytest.mark.parametrize("name", ALL)
def test_schema_stream(benchmark: Any, name: str) -> None:
    fn = cases().get(name)
    if fn is None:
        pytest.skip("peer not installed")
    chunks = corpus(CORPUS).chunks(CHUNK)
    benchmark.group = f"schema {CORPUS} chunk={CHUNK}"
    benchmark.extra_info.update(corpus=CORPUS, chunk=CHUNK, impl=name, backend=argstream.BACKEND)
    if name in QUADRATIC:
        result = benchmark.pedantic(fn, args=(chunks,), rounds=1, iterations=1)
    else:
        result = benchmark(fn, chunks)
    verify(name, result)


def main(rounds: int = 7) -> None:
    """Time every case in this process (best of ``rounds``; one round for the quadratic ones)."""
    chunks = corpus(CORPUS).chunks(CHUNK)
    best: dict[str, float] = {}
    for name, fn in cases().items():
        for _ in range(1 if name in QUADRATIC else rounds):
            start = time.process_time()
            result = fn(chunks)
            elapsed = time.process_time() - start
            best[name] = min(best.get(name, elapsed), elapsed)
        verify(name, result)
    base = best["parse"]
    print(f"{CORPUS}, {CHUNK}-character chunks ({len(chunks)} chunks), backend {argstream.BACKEND}, CPU time")
    for name, seconds in best.items():
        print(f"  {name:32s} {seconds * 1000:10.1f} ms   {seconds / base:8.2f}x parse")


if __name__ == "__main__":
    main()
