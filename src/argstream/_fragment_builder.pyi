"""Types of the compiled fragment builder (``_fragment_builder.pyx``)."""

from typing import Any

from ._sink import Sink
from ._tokenizer import Tokenizer

class FragmentBuilder(Sink):
    out: list[Any]
    flat: bool
    spans: list[tuple[int, int]] | None
    keys: list[tuple[int, tuple, tuple[int, int]]] | None
    at_end: bool
    def __init__(self, flat: bool = False, tokenizer: Tokenizer | None = None) -> None: ...
