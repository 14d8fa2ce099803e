"""The JSON text of SSE frames: exactly what ``json.JSONEncoder(ensure_ascii=True, allow_nan=False,
separators=(",", ":"))`` writes, without its cost per call.

``JSONEncoder.encode`` builds a new C encoder for every value; the frames here reuse one (without
the cycle check: the encoders' chunks are trees). ``quote`` is the JSON text of a string (the C
``encode_basestring_ascii``): the frames of an argument delta are precomputed text around it.
Both are byte for byte the generic encoder's (``tests/test_ui_framing.py`` checks them on hostile
strings), and ASCII: a lone surrogate travels as its escape, U+2028 never raw.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as quote
from typing import Any

__all__ = ["frame", "json_text", "quote"]

_generic = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def _reused_encoder() -> Callable[[Any], str] | None:
    """The C encoder, built once; ``None`` where the json module has none (PyPy) or takes other arguments."""
    make = getattr(json.encoder, "c_make_encoder", None)  # not in the typeshed stubs
    if make is None:
        return None
    try:
        encode = make(None, _generic.default, quote, None, ":", ",", False, False, False)
    except TypeError:
        return None
    probe = {"a": [1, 2.5, None, True, "\u2028\ud800<"], "b": {"c": -0.0}}
    if "".join(encode(probe, 0)) != _generic.encode(probe):
        return None

    def json_text(data: Any) -> str:
        return "".join(encode(data, 0))

    return json_text


json_text: Callable[[Any], str] = _reused_encoder() or _generic.encode


def frame(data: Any) -> bytes:
    """One ``data: <json>\\n\\n`` event."""
    return ("data: " + json_text(data) + "\n\n").encode("ascii")
