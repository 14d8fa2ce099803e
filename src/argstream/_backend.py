"""Chooses the compiled core or its pure-Python twin, once, at import (like yarl's ``_quoting``).

The one place that decides: ``parser`` and ``fragments`` re-export what it
picks. ``ARGSTREAM_PURE=1`` forces the twin. Otherwise the compiled modules
are used when they import; when they do not, the twin runs. A ``RuntimeWarning``
says so on CPython when that is a fault (a compiled module is installed but
does not load); a pure build, chosen at install (``ARGSTREAM_PURE_BUILD=1``,
no compiled module on disk), is not warned about on every import:
``BACKEND`` and ``argstream --version`` say which core runs.

Both implementations stay reachable by name (``*C`` is ``None`` when the
extension is not in use), for differential tests; each parser builds its own
fragment types, so the twin's parser returns the twin's types.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import platform
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any

from . import _fragments_py, _parser_py, _tokenizer_py

PURE = os.environ.get("ARGSTREAM_PURE", "") not in ("", "0")


_COMPILED = ("_fragments", "_parser", "_tokenizer", "_piece_skip", "_pieces", "_aggregate", "_records", "_calls", "_raw",
             "_fastpath", "_encode", "_astream")


def _pure_build(exc: ImportError) -> bool:
    """The compiled modules are missing and none is on disk: a pure build, chosen at install."""
    missing = isinstance(exc, ModuleNotFoundError) and exc.name in {f"{__package__}.{m}" for m in _COMPILED}
    here = os.path.dirname(os.path.abspath(__file__))
    on_disk = any(os.path.exists(os.path.join(here, m + suffix))
                  for m in _COMPILED for suffix in importlib.machinery.EXTENSION_SUFFIXES)
    return missing and not on_disk


def _unavailable(exc: ImportError) -> str:
    """The warning for a compiled core that does not import, naming the real cause."""
    missing = isinstance(exc, ModuleNotFoundError) and exc.name in {f"{__package__}.{m}" for m in _COMPILED}
    if missing:
        cause = "the compiled extension was not built (a pure build, ARGSTREAM_PURE_BUILD=1, or not compiled in place)"
    else:
        cause = f"the compiled extension is installed but does not load: {type(exc).__name__}: {exc}"
    return f"argstream: {cause}; using the pure-Python twin (same behaviour, slower)"


core: ModuleType | None = None  # the compiled parser module
fragments_c: ModuleType | None = None
tokenizer_c: ModuleType | None = None
piece_skip_c: ModuleType | None = None
if not (TYPE_CHECKING or PURE):
    try:
        # import_module, not ``from . import``: a missing module then says so instead of
        # "partially initialized module ... (most likely due to a circular import)".
        fragments_c = importlib.import_module(f"{__package__}._fragments")
        core = importlib.import_module(f"{__package__}._parser")
        tokenizer_c = importlib.import_module(f"{__package__}._tokenizer")
        piece_skip_c = importlib.import_module(f"{__package__}._piece_skip")
    except ImportError as exc:  # pragma: no cover - depends on the build
        if os.environ.get("ARGSTREAM_REQUIRE_EXTENSION", "") not in ("", "0"):
            raise
        if platform.python_implementation() == "CPython" and not _pure_build(exc):
            warnings.warn(_unavailable(exc), RuntimeWarning, stacklevel=2)
        core = fragments_c = tokenizer_c = piece_skip_c = None

BACKEND: str = "cython" if core is not None else "python"

IncrementalArgParserPy = _parser_py.IncrementalArgParser
TokenizerPy = _tokenizer_py.Tokenizer
IncrementalArgParserC: Any = None
TokenizerC: Any = None

if core is not None and fragments_c is not None and tokenizer_c is not None:
    IncrementalArgParserC = core.IncrementalArgParser
    TokenizerC = tokenizer_c.Tokenizer
    IncrementalArgParser: Any = IncrementalArgParserC
    StrictParsers: Any = core.StrictParsers
    Scalar: Any = fragments_c.Scalar
    String: Any = fragments_c.String
    ArrayItem: Any = fragments_c.ArrayItem
    ObjectEntry: Any = fragments_c.ObjectEntry
else:
    IncrementalArgParser = IncrementalArgParserPy
    StrictParsers = _parser_py.StrictParsers
    Scalar = _fragments_py.Scalar
    String = _fragments_py.String
    ArrayItem = _fragments_py.ArrayItem
    ObjectEntry = _fragments_py.ObjectEntry

#: the fragment classes of both implementations, for code that dispatches on ``type()``
SCALAR_TYPES = frozenset({Scalar, _fragments_py.Scalar})
STRING_TYPES = frozenset({String, _fragments_py.String})
ARRAY_ITEM_TYPES = frozenset({ArrayItem, _fragments_py.ArrayItem})
OBJECT_ENTRY_TYPES = frozenset({ObjectEntry, _fragments_py.ObjectEntry})

# The twin reads STRING_TYPES from here, so it is imported once they exist.
from . import _piece_skip_py  # noqa: E402

if TYPE_CHECKING:
    from ._piece_skip_py import PieceSkipper
else:
    #: the base of a consumer whose ``extend`` drops the pieces of a string nothing looks at
    PieceSkipper = piece_skip_c.PieceSkipper if piece_skip_c is not None else _piece_skip_py.PieceSkipper

from . import _records_py  # noqa: E402

#: ``record(cls)``: a maker of ``cls``'s instances without its ``__init__`` (``_records.Maker``), or ``cls``
#: itself without the compiled core; for the items and events each stream makes a few of
records_c: ModuleType | None = importlib.import_module(f"{__package__}._records") if core is not None else None
record: Any = records_c.Maker if records_c is not None else _records_py.maker
#: ``datetime.now(timezone.utc)``, the timestamp of each flushed event (``_records.utc_now``)
utc_now: Any = records_c.utc_now if records_c is not None else _records_py.utc_now

# The per-call pipeline state and its progress item; they read the fragment types above.
from . import _calls_py  # noqa: E402

calls_c: ModuleType | None = None
if core is not None:
    calls_c = importlib.import_module(f"{__package__}._calls")

if TYPE_CHECKING:
    from ._calls_py import ArgumentCall, PipelineBase, ToolCallArgumentProgress
elif calls_c is not None:
    ArgumentCall = calls_c.ArgumentCall
    ToolCallArgumentProgress = calls_c.ToolCallArgumentProgress
    PipelineBase = calls_c.PipelineBase
else:
    ArgumentCall = _calls_py.ArgumentCall
    ToolCallArgumentProgress = _calls_py.ToolCallArgumentProgress
    PipelineBase = _calls_py.PipelineBase
#: raw SSE in C (``_raw``): the compiled event template and delta lane, or ``None`` (the pure path)
raw_c: ModuleType | None = importlib.import_module(f"{__package__}._raw") if core is not None else None

#: compact JSON text of a plain argument value in C (``_encode.compact``), or ``None`` (``json.dumps`` only)
encode_c: ModuleType | None = importlib.import_module(f"{__package__}._encode") if core is not None else None

#: the adapters' fast tests (``_fastpath``): the bases of the Anthropic, Chat, Responses, Gemini, Ollama,
#: LangChain, pydantic-ai and Agents SDK adapters
from . import _fastpath_py  # noqa: E402

fastpath_c: ModuleType | None = importlib.import_module(f"{__package__}._fastpath") if core is not None else None
if TYPE_CHECKING:
    from ._fastpath_py import (AgentsFast, AnthropicBlock, AnthropicFast, ChatFast, GeminiFast, LangChainFast,
                               OllamaFast, PydanticAIFast, ResponsesFast, ResponsesItem)
else:
    AnthropicFast = fastpath_c.AnthropicFast if fastpath_c is not None else _fastpath_py.AnthropicFast
    ChatFast = fastpath_c.ChatFast if fastpath_c is not None else _fastpath_py.ChatFast
    ResponsesFast = fastpath_c.ResponsesFast if fastpath_c is not None else _fastpath_py.ResponsesFast
    LangChainFast = fastpath_c.LangChainFast if fastpath_c is not None else _fastpath_py.LangChainFast
    PydanticAIFast = fastpath_c.PydanticAIFast if fastpath_c is not None else _fastpath_py.PydanticAIFast
    AgentsFast = fastpath_c.AgentsFast if fastpath_c is not None else _fastpath_py.AgentsFast
    GeminiFast = fastpath_c.GeminiFast if fastpath_c is not None else _fastpath_py.GeminiFast
    OllamaFast = fastpath_c.OllamaFast if fastpath_c is not None else _fastpath_py.OllamaFast
    AnthropicBlock = fastpath_c.AnthropicBlock if fastpath_c is not None else _fastpath_py.AnthropicBlock
    ResponsesItem = fastpath_c.ResponsesItem if fastpath_c is not None else _fastpath_py.ResponsesItem
#: the fields of a dict among some names, those not ``None``, in their order (``_fastpath_py.present``)
present: Any = fastpath_c.present if fastpath_c is not None else _fastpath_py.present

#: the object ``aiter_tool_stream`` returns and what its body yields to hand its loop over (``_astream``)
from . import _astream_py  # noqa: E402

astream_c: ModuleType | None = importlib.import_module(f"{__package__}._astream") if core is not None else None
if TYPE_CHECKING:
    from ._astream_py import AsyncItems, Handover
else:
    AsyncItems = astream_c.AsyncItems if astream_c is not None else _astream_py.AsyncItems
    Handover = astream_c.Handover if astream_c is not None else _astream_py.Handover

#: whether arguments a provider sent whole can reach the call as their decoded value (``events.WholeArguments``)
walkable: Any = calls_c.walkable if calls_c is not None else _calls_py.walkable
#: the progress items of a call sent whole that opens and closes at once (``_calls_py.whole_items``)
whole_items: Any = calls_c.whole_items if calls_c is not None else _calls_py.whole_items

ArgumentCallPy = _calls_py.ArgumentCall
ToolCallArgumentProgressPy = _calls_py.ToolCallArgumentProgress
#: the progress item classes of both implementations
PROGRESS_TYPES = (ToolCallArgumentProgress, ToolCallArgumentProgressPy)
