# cython: language_level=3, embedsignature=True, binding=False
"""The adapters' fast tests in C: twins of ``_fastpath_py``, which they follow line by line.

Each class is the base of one provider adapter (``providers.anthropic.AnthropicAdapter``,
``providers.openai_responses.ResponsesAdapter``) and holds the state its ``chunk`` reads, so that
the test for the provider's dominant event (an argument delta of a call already started) runs
without a Python frame: a few dict lookups, and ``(index, text)`` or ``None``, with nothing
changed when it declines.
"""

cimport cython
from cpython.dict cimport PyDict_CheckExact, PyDict_Size
from cpython.list cimport PyList_GET_SIZE
from cpython.object cimport Py_TYPE
from cpython.exc cimport PyErr_Clear, PyErr_ExceptionMatches
from cpython.ref cimport Py_DECREF, PyObject
from cpython.unicode cimport PyUnicode_GET_LENGTH

from argstream._encode cimport escaped_length
from argstream._pieces cimport PIECES_EVERY, compact_pieces

cdef extern from "Python.h":
    PyObject* PyDict_GetItemWithError(object d, object key) except? NULL
    # as C returns them (a new reference, or NULL with an error set): read through ``taken``
    PyObject* GenericGetDict "PyObject_GenericGetDict"(object o, void* context)
    PyObject* GenericGetAttr "PyObject_GenericGetAttr"(object o, object name)

cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    # a new reference, or NULL with an error set (AttributeError for an unset slot): read through ``taken``
    PyObject* PyMember_GetOne(const char* obj_addr, PyMemberDef* m)
    int PY_AUDIT_READ

cdef extern from *:
    """
    /* The hash a str caches (computed when it became a dict key), without a call. */
    static inline Py_hash_t argstream_str_hash(PyObject *key) {
    #if !defined(PYPY_VERSION) && !defined(Py_GIL_DISABLED)
        Py_hash_t h = ((PyASCIIObject *)key)->hash;
        if (h != -1)
            return h;
    #endif
        return PyObject_Hash(key);
    }

    /* Whether exact str ``key`` equals ``name`` (an ASCII str). */
    static inline int argstream_str_equal(PyObject *key, PyObject *name) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(name);
        if (PyUnicode_GET_LENGTH(key) != n)
            return 0;
        if (PyUnicode_IS_COMPACT_ASCII(key))
            return memcmp(PyUnicode_DATA(key), PyUnicode_DATA(name), (size_t)n) == 0;
        return PyUnicode_Compare(key, name) == 0;
    }

    /* One pass over dict ``d``: ``out[i]`` (borrowed) is the value of the key equal to ``names[i]``,
       left as it was where there is none. -1 (nothing read) when a key is not an exact str: such
       a key may compare equal to a name in its own way, and only a lookup by name finds that. */
    static int argstream_scan(PyObject *d, PyObject **names, Py_hash_t *hashes, int n, PyObject **out) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        Py_hash_t h;
        int i;
        while (PyDict_Next(d, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key))
                return -1;
            h = argstream_str_hash(key);
            for (i = 0; i < n; i++) {
                if (h == hashes[i] && (key == names[i] || argstream_str_equal(key, names[i]))) {
                    out[i] = value;
                    break;
                }
            }
        }
        return 0;
    }

    /* The fields of one level of an event, as a dict to scan (borrowed), or NULL (no error set)
       when the caller's general way reads the level (``level_fields``, in Cython below). */
    typedef PyObject *(*argstream_level_t)(PyObject *level);

    /* A level's fields: an exact dict (a decoded wire event's every level) without a call. */
    static inline PyObject *argstream_level(PyObject *level, argstream_level_t fields) {
        return PyDict_CheckExact(level) ? level : fields(level);
    }

    /* One pass over a level whose every name an SDK object keeps among its own fields when it has
       it (the choice, the tool call entry, its function): an exact dict scanned as it is; an object's
       ``__dict__`` (``own``) scanned without its extras when every name is found there, since a field
       found wins over the extras (as ``get`` and the twin's ``fields`` have it); else the extras
       asked through ``fields`` (NULL unless there are none). Returns as ``argstream_scan``, -1 also
       where ``own`` or ``fields`` leave the level to the general way. */
    static inline int argstream_scan_own(PyObject *level, PyObject **names, Py_hash_t *hashes, int n,
                                         PyObject **out, argstream_level_t fields, argstream_level_t own) {
        PyObject *d;
        int i;
        if (PyDict_CheckExact(level))
            return argstream_scan(level, names, hashes, n, out);
        d = own(level);
        if (d == NULL || argstream_scan(d, names, hashes, n, out) < 0)
            return -1;
        for (i = 0; i < n; i++)
            if (out[i] == NULL)
                return fields(level) == NULL ? -1 : 0;
        return 0;
    }

    /* Whether an allocation never runs the cyclic collector (3.12 runs it between bytecodes only), so
       that reading an object's ``__dict__``, which may make it, runs no code while borrowed values of
       the levels above are held. */
    #define ARGSTREAM_QUIET_ALLOC (PY_VERSION_HEX >= 0x030C0000)

    /* The levels of a Chat chunk that ``ChatFast.choice_delta`` reads, each level's fields given by
       ``fields`` (exact lists between them), each read in one pass (``argstream_scan``) at the offsets
       of ``SCAN_NAMES`` in ``names`` / ``hashes`` (0: the chunk, 5: its choice). 1: the chunk has one
       choice that does not finish, and ``out`` holds its response id, choice number and delta's
       fields (an exact dict; borrowed; NULL where absent or null); 0: ``choice_delta`` says ``None``;
       -1: ``choice_delta`` reads it (a key that is not an exact str, a level ``fields`` leaves to it).
       No code of the chunk's runs. */
    static int argstream_chat_choice(PyObject *chunk, PyObject **names, Py_hash_t *hashes, PyObject **out,
                                     argstream_level_t fields, argstream_level_t own) {
        PyObject *v[5] = {NULL, NULL, NULL, NULL, NULL};
        PyObject *level;
        chunk = argstream_level(chunk, fields);
        if (chunk == NULL || argstream_scan(chunk, names, hashes, 5, v) < 0)
            return -1;
        if ((v[1] && v[1] != Py_None) || (v[2] && v[2] != Py_None) || (v[3] && v[3] != Py_None))
            return 0;  /* usage, error or type */
        level = v[0];  /* choices */
        if (level == NULL || !PyList_CheckExact(level) || PyList_GET_SIZE(level) != 1)
            return 0;
        out[0] = v[4] == Py_None ? NULL : v[4];
        v[0] = v[1] = v[2] = NULL;
        if (argstream_scan_own(PyList_GET_ITEM(level, 0), names + 5, hashes + 5, 3, v, fields, own) < 0)
            return -1;
        if (v[0] && v[0] != Py_None)
            return 0;  /* finish_reason */
        if (v[1] && v[1] != Py_None && !PyLong_CheckExact(v[1]))
            return 0;  /* the choice's index */
        out[1] = v[1] == Py_None ? NULL : v[1];
        level = v[2] == NULL ? NULL : argstream_level(v[2], fields);  /* delta */
        if (level == NULL)
            return -1;
        out[2] = level;
        return 1;
    }

    /* ``ChatFast.shape`` of such a chunk, on from ``argstream_chat_choice`` (22: its delta's
       ``tool_calls`` and other content fields, 9: the tool call entry, 12: its function). 1: the
       chunk has the dominant shape, and ``out`` holds its response id, choice number, entry index,
       call id, name and arguments (borrowed; NULL where absent or null); 0: it has not; -1: ``shape``
       reads it (as above, or a content field whose truth is not a JSON value's). */
    static int argstream_chat_wire(PyObject *chunk, PyObject **names, Py_hash_t *hashes, PyObject **out,
                                   argstream_level_t fields, argstream_level_t own) {
        PyObject *v[3];
        PyObject *p[7];
        PyObject *level;
        int i = argstream_chat_choice(chunk, names, hashes, v, fields, own);
        if (i <= 0)
            return i;
        out[0] = v[0];
        out[1] = v[1];
        for (i = 0; i < 7; i++)
            p[i] = NULL;
        if (argstream_scan(v[2], names + 22, hashes + 22, 7, p) < 0)
            return -1;
        level = p[0];  /* tool_calls */
        if (level == NULL || !PyList_CheckExact(level) || PyList_GET_SIZE(level) != 1)
            return 0;
        for (i = 1; i < 7; i++) {  /* the other content fields: ``payload_besides_calls`` */
            if (p[i] == NULL || p[i] == Py_None)
                continue;
            if (!(PyUnicode_CheckExact(p[i]) || PyList_CheckExact(p[i]) || PyDict_CheckExact(p[i])
                  || PyBool_Check(p[i]) || PyLong_CheckExact(p[i]) || PyFloat_CheckExact(p[i])))
                return -1;  /* a value whose truth ``shape`` asks it (its own code may answer) */
            if (PyObject_IsTrue(p[i]))  /* a JSON value's truth: no code of the chunk's runs */
                return 0;
        }
        v[0] = v[1] = v[2] = NULL;
        if (argstream_scan_own(PyList_GET_ITEM(level, 0), names + 9, hashes + 9, 3, v, fields, own) < 0)
            return -1;
        if (v[0] == NULL || !PyLong_CheckExact(v[0]))
            return 0;  /* the entry's index */
        out[2] = v[0];
        out[3] = v[1] == Py_None ? NULL : v[1];
        level = v[2];  /* function */
        if (level == NULL)
            return -1;
        v[0] = v[1] = NULL;
        if (argstream_scan_own(level, names + 12, hashes + 12, 2, v, fields, own) < 0)
            return -1;
        out[4] = v[1] == Py_None ? NULL : v[1];
        out[5] = v[0] == Py_None ? NULL : v[0];
        return 1;
    }
    """
    int argstream_scan(object d, PyObject** names, Py_hash_t* hashes, int n, PyObject** out)
    ctypedef PyObject* (*argstream_level_t)(PyObject* level) noexcept
    bint ARGSTREAM_QUIET_ALLOC
    int argstream_chat_choice(object chunk, PyObject** names, Py_hash_t* hashes, PyObject** out,
                              argstream_level_t fields, argstream_level_t own)
    int argstream_chat_wire(object chunk, PyObject** names, Py_hash_t* hashes, PyObject** out,
                            argstream_level_t fields, argstream_level_t own)

import types as _types
from json.encoder import encode_basestring as _encode_string

#: what a text test's answer holds: ``_fastpath_py.MESSAGE_TEXT``, ``REASONING_TEXT``, ``STRUCTURED_TEXT``
cdef enum:
    MESSAGE_TEXT = 0
    REASONING_TEXT = 1
    STRUCTURED_TEXT = 2

cdef int TEXT = 0  # providers.anthropic._TEXT
cdef int THINKING = 1  # providers.anthropic._THINKING
cdef int TOOL = 2  # providers.anthropic._TOOL
cdef str MESSAGE = u"message"  # providers.openai_responses._MESSAGE
cdef str REASONING = u"reasoning"  # providers.openai_responses._REASONING
cdef str FUNCTION = u"function_call"  # providers.openai_responses._FUNCTION
cdef int PART_TOOL = 2  # providers.pydantic_ai._TOOL
cdef str PLACEHOLDER = u"__fake_id__"  # providers.openai_agents.PLACEHOLDER_ID
cdef str EXTRA = u"__pydantic_extra__"
cdef object ENCODE_STRING = _encode_string  # json's string encoder (``GeminiFast``: a piece that needs escaping)

#: How each type met so far keeps its fields: ``OTHER`` (read with ``getattr``, as the twin does),
#: ``OWN`` (an ordinary instance ``__dict__`` and no custom attribute lookup), ``OWN_EXTRA`` (that,
#: and pydantic's ``__pydantic_extra__`` slot). Decided once per type: reading ``__dict__`` and the
#: extras through ``getattr`` goes through pydantic's ``__getattr__`` hook, ~100 ns each. For
#: ``OWN_EXTRA`` the slot's member descriptor (the one attribute lookup finds, first in the MRO) is
#: kept too, and read with ``PyMember_GetOne``, as its ``__get__`` does, without the lookup by name
#: on every object (five a Chat chunk).
cdef enum:
    OTHER = 0
    OWN = 1
    OWN_EXTRA = 2
cdef dict KINDS = {}
cdef Py_ssize_t KINDS_MAX = 512  # a stream of ever new types falls back to getattr, never grows this
#: The last types met and their kinds, looked up by pointer before ``KINDS`` (a stream meets a
#: handful of types; each lives in ``KINDS`` as long as it sits here).
cdef enum:
    RECENT = 8
cdef PyObject* recent_types[RECENT]
cdef int recent_kinds[RECENT]
cdef PyMemberDef* recent_members[RECENT]
cdef int recent_next = 0


cdef inline int recent_kind(PyObject* t, PyMemberDef** member) noexcept:
    """The kind of type ``t`` when it is among the recent types (its extras' member in ``member``),
    else -1: ``kind_and_member`` without its slow way, which may run code."""
    cdef int i
    for i in range(RECENT):
        if recent_types[i] == t:
            member[0] = recent_members[i]
            return recent_kinds[i]
    return -1


cdef inline int kind_of(type t) except -1:
    """How instances of ``t`` are read (see ``KINDS``), decided from the type alone."""
    cdef PyMemberDef* member
    return kind_and_member(t, &member)


cdef inline int kind_and_member(type t, PyMemberDef** member) except -1:
    """``kind_of``, and in ``member`` the extras' member of an ``OWN_EXTRA`` type (NULL: read by name)."""
    cdef int kind = recent_kind(<PyObject*>t, member)
    return kind if kind >= 0 else kind_of_slow(t, member)


cdef int remember(type t, int kind, object descriptor, PyMemberDef** out) except -1:
    """Put ``t`` among the recent types (its kind and extras' member from ``KINDS``, which keeps
    the type and the descriptor alive); ``out`` is the member."""
    global recent_next
    cdef PyMemberDef* member = NULL
    if descriptor is not None:
        member = (<PyMemberDescrObject*>descriptor).d_member
        if member.flags & PY_AUDIT_READ:
            member = NULL  # an audited read goes through ``__get__`` (the lookup by name)
    recent_types[recent_next] = <PyObject*>t
    recent_kinds[recent_next] = kind
    recent_members[recent_next] = member
    recent_next = (recent_next + 1) % RECENT
    out[0] = member
    return kind


cdef int kind_of_slow(type t, PyMemberDef** member) except -1:
    cdef PyObject* known = PyDict_GetItemWithError(KINDS, t)
    cdef int kind
    cdef object descriptor = None
    if known != NULL:
        kind, descriptor = <tuple><object>known
        return remember(t, kind, descriptor, member)
    kind = OTHER
    if t.__getattribute__ is object.__getattribute__:
        for klass in t.__mro__:
            if u"__dict__" in klass.__dict__:
                if type(klass.__dict__[u"__dict__"]) is _types.GetSetDescriptorType:
                    kind = OWN
                break
        if kind == OWN:
            for klass in t.__mro__:
                if EXTRA in klass.__dict__:
                    if type(klass.__dict__[EXTRA]) is _types.MemberDescriptorType:
                        kind = OWN_EXTRA
                        descriptor = klass.__dict__[EXTRA]
                    break
    if PyDict_Size(KINDS) < KINDS_MAX:
        KINDS[t] = (kind, descriptor)  # kept alive here, so no pointer in the recent arrays dangles
        return remember(t, kind, descriptor, member)
    member[0] = NULL
    return kind


cdef int raise_set() except -1:
    """Raise the error already set (``except -1`` makes the caller raise it)."""
    return -1


cdef inline object taken(PyObject* found):
    """The object of a new reference a C lookup returned; ``None`` where it failed with an
    ``AttributeError`` (cleared), any other error raised. It replaces a ``try`` block, whose save of
    the exception state costs more than the lookup itself."""
    cdef object value
    if found == NULL:
        if PyErr_ExceptionMatches(AttributeError):
            PyErr_Clear()
            return None
        raise_set()
    value = <object>found
    Py_DECREF(value)
    return value


cdef inline PyObject* own_dict(PyObject* level) noexcept:
    """``level.__dict__``, borrowed (the object holds it), or NULL with no error set."""
    cdef PyObject* found = GenericGetDict(<object>level, NULL)
    if found == NULL:
        PyErr_Clear()
        return NULL
    Py_DECREF(<object>found)
    return found if PyDict_CheckExact(<object>found) else NULL


cdef PyObject* level_fields(PyObject* level) noexcept:
    """The fields of one level of a Chat chunk that is not an exact dict (``argstream_level`` takes
    those), as ``fields`` gives them when they are one dict: for an object of a type met lately
    (``recent_types``) whose kind is ``OWN`` or ``OWN_EXTRA`` with no extras (the slot unset, ``None``
    or an empty dict), its ``__dict__``. Borrowed: the object holds it, and no code runs
    (``ARGSTREAM_QUIET_ALLOC``; before 3.12 objects are left to ``fields``). NULL, with no error set,
    for anything else: ``fields`` reads it (a type met first, extras, a lookup that fails)."""
    cdef PyMemberDef* member = NULL
    cdef PyObject* found
    cdef int kind
    cdef bint plain
    if not ARGSTREAM_QUIET_ALLOC:
        return NULL
    kind = recent_kind(<PyObject*>Py_TYPE(<object>level), &member)
    if kind <= OTHER or (kind == OWN_EXTRA and member == NULL):
        return NULL
    if kind == OWN_EXTRA:
        found = PyMember_GetOne(<const char*>level, member)
        if found == NULL:  # an unset slot (AttributeError): no extras
            plain = PyErr_ExceptionMatches(AttributeError)
            PyErr_Clear()
            if not plain:
                return NULL
        else:
            plain = found == <PyObject*>None or (
                PyDict_CheckExact(<object>found) and PyDict_Size(<object>found) == 0)
            Py_DECREF(<object>found)
            if not plain:
                return NULL
    return own_dict(level)


cdef PyObject* level_own(PyObject* level) noexcept:
    """A level's own fields, its extras not read: the ``__dict__`` (borrowed) of an object of a type
    met lately whose kind is ``OWN`` or ``OWN_EXTRA``, else NULL with no error set. For
    ``argstream_scan_own``, which asks ``level_fields`` for the extras when a name is not there;
    NULL before 3.12, as ``level_fields``."""
    cdef PyMemberDef* member = NULL
    if not ARGSTREAM_QUIET_ALLOC or recent_kind(<PyObject*>Py_TYPE(<object>level), &member) <= OTHER:
        return NULL
    return own_dict(level)


cdef inline object own_fields(object item):
    """``item.__dict__`` for a type of kind ``OWN`` / ``OWN_EXTRA`` (``None`` when it has none)."""
    return taken(GenericGetDict(item, NULL))


cdef inline object as_dict(object item):
    """A wire dict as it is, an SDK object's fields (``__dict__``), else ``None``."""
    if type(item) is dict:
        return item
    if kind_of(type(item)) != OTHER:
        d = own_fields(item)
    else:
        d = getattr(item, "__dict__", None)
    return d if type(d) is dict else None


#: The fields the fast tests take from each level of an event in one pass (``scan``), their
#: hashes, and the tuple that keeps the names alive.
cdef enum:
    SCAN_MAX = 5
cdef tuple SCAN_NAMES = (u"choices", u"usage", u"error", u"type", u"id",  # the chunk
                         u"finish_reason", u"index", u"delta",  # its choice
                         u"tool_calls",  # its delta
                         u"index", u"id", u"function",  # its tool call entry
                         u"arguments", u"name",  # the entry's function
                         u"type", u"delta", u"index",  # an Anthropic event
                         u"type", u"partial_json",  # its delta
                         u"type", u"text", u"thinking",  # its text or thinking delta
                         u"tool_calls", u"content", u"refusal", u"function_call",  # a Chat delta's
                         u"reasoning_content", u"reasoning", u"reasoning_details")  # content fields (``PAYLOAD``)
cdef PyObject* SCAN_KEYS[29]
cdef Py_hash_t SCAN_HASHES[29]
assert len(SCAN_NAMES) == 29
for _i, _name in enumerate(SCAN_NAMES):
    SCAN_KEYS[_i] = <PyObject*>_name
    SCAN_HASHES[_i] = hash(_name)
cdef enum:  # (``argstream_chat_wire`` reads the first five at these offsets)
    CHUNK_AT = 0
    CHOICE_AT = 5
    DELTA_AT = 8
    ENTRY_AT = 9
    FUNCTION_AT = 12
    ANTHROPIC_AT = 14
    ANTHROPIC_DELTA_AT = 17
    ANTHROPIC_TEXT_AT = 19
    CHAT_DELTA_AT = 22


cdef inline int scan(object view, int at, int n, PyObject** out):
    """``out[i]`` is ``get(view, SCAN_NAMES[at + i])`` (borrowed; NULL for ``None``), for ``i < n``,
    from one pass over the view's dicts (the extras first: the fields win, as in ``get``); -1 when a
    dict holds a key that is not an exact str (the caller reads by name)."""
    cdef int i
    for i in range(n):
        out[i] = NULL
    if type(view) is dict:
        return argstream_scan(view, &SCAN_KEYS[at], &SCAN_HASHES[at], n, out)
    if argstream_scan((<tuple>view)[1], &SCAN_KEYS[at], &SCAN_HASHES[at], n, out) < 0:
        return -1
    return argstream_scan((<tuple>view)[0], &SCAN_KEYS[at], &SCAN_HASHES[at], n, out)


cdef object view_lookup(object view, int at, int n, PyObject** out):
    """``out[i]`` is ``get(view, SCAN_NAMES[at + i])`` (borrowed; NULL for ``None``), for ``i < n``, for
    a dict or a view of ``fields``: from one pass (``scan``; no code of the item's runs), or by name
    where a dict holds a key that is not an exact str. Such a key's ``__eq__`` may change the dicts
    while they are read, so then each value is held as soon as it is found, in the list returned
    (``None`` after one pass): the caller keeps it while it reads ``out``."""
    cdef int i
    cdef list held
    cdef object value
    if scan(view, at, n, out) == 0:
        return None
    held = []
    for i in range(n):
        value = get(view, <str><object>SCAN_KEYS[at + i])
        held.append(value)
        out[i] = <PyObject*>value if value is not None else NULL
    return held


cdef object ZERO = 0


cdef inline object value_of(PyObject* found):
    """A value ``scan`` found, as an object (``None`` where it found none)."""
    return <object>found if found != NULL else None


cdef class FastTest:
    """The base of the compiled fast tests: ``hit(item)`` is what ``chunk(item)`` returns.

    The per-delta callers use the tuple-free forms: ``hit_slot``, ``hit_text`` and ``hit_form`` return
    the slot of the call the delta continues, or ``None``, and leave its text in ``found``.
    """

    cdef object hit(self, object item):
        return None

    cdef object hit_slot(self, object item):
        """``hit(item)`` without its tuple: the slot, its text in ``found`` (a test that builds no
        tuple of its own overrides this)."""
        return self.unpack(self.hit(item))

    cdef object hit_text(self, object item, object text):
        """``chunk(item, text=text)``, as a slot (text in ``found``): ``item`` an event learned earlier,
        ``text`` a new argument text read from an event of its shape (the raw lane, ``_raw.SSELane``)."""
        cdef object got = getattr(self, u"chunk")(item, text=text)
        if got is not None and type(got) is not tuple:
            raise TypeError(f"chunk() returned {type(got).__name__}, not a tuple")
        return self.unpack(got)

    cdef object form(self, object item):
        """What ``hit_text`` reads of ``item`` that no state of the stream changes (where the event
        goes), or ``None`` (not a delta here, or no such form): ``hit_form(form, text)`` is then
        ``hit_text(item, text)``, without reading ``item`` again (the lane keeps it per template)."""
        return None

    cdef object hit_form(self, object form, object text):
        return None

    cdef object text_slot(self, object item, object text):
        """``text_chunk(item, text=text)`` as a slot (its text in ``found``, its kind in ``found_kind``):
        the index of the one ``Message`` / ``Reasoning`` / ``Structured`` part the adapter's ``feed``
        would make of ``item`` (with ``text``, when not ``None``, as its text: an event read by
        template), having done what ``feed`` does to the adapter's state; else ``None`` and nothing
        changed (a test without a text form: always ``None``)."""
        return None

    cdef object unpack(self, object got):
        """The slot of a ``(slot, text)`` answer, its text in ``found``; ``None`` for ``None``."""
        if got is None:
            return None
        self.found = (<tuple>got)[1]
        return (<tuple>got)[0]

    cdef object pair(self, object slot):
        """The ``(slot, text)`` answer of a slot (``found`` its text); ``None`` for ``None``."""
        if slot is None:
            return None
        return slot, self.found

    cdef object triple(self, object slot):
        """The ``(slot, text, kind)`` answer of a ``text_slot`` slot; ``None`` for ``None``."""
        if slot is None:
            return None
        return slot, self.found, self.found_kind


#: the classes of this module whose ``chunk`` is ``hit`` (``fast_test``)
cdef tuple COMPILED = ()


cpdef object fast_test(object chunk, str name=u"chunk"):
    """The adapter of a bound ``chunk`` method (``name``: ``text_chunk``) that is one of this module's
    (not overridden in a subclass), whose ``hit`` (``text_slot``) the caller may run instead of calling
    it; else ``None``."""
    cdef object owner = getattr(chunk, "__self__", None)
    cdef object cls, key, known, method, found
    if not isinstance(owner, FastTest):
        return None
    cls = type(owner)
    method = getattr(cls, name, None)
    key = (cls, name)
    known = FAST_CLASSES.get(key)
    if known is not None and (<tuple>known)[0] is method:
        return owner if (<tuple>known)[1] else None
    found = False
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass in COMPILED
            break
    if len(FAST_CLASSES) >= 256:
        FAST_CLASSES.clear()  # (classes made on the fly: the answers are kept for a few, not for all)
    FAST_CLASSES[key] = (method, found)
    return owner if found else None


#: ``fast_test``'s answers by ``(class, name)``: the class's attribute then, and whether it is this
#: module's (walking the MRO cost about 4K instructions a stream); an attribute changed since is asked again
cdef dict FAST_CLASSES = {}


cdef class AnthropicBlock:
    """See ``_fastpath_py.AnthropicBlock``: its fields are read here without an attribute lookup."""

    def __init__(self, int kind):
        self.kind = kind
        self.whole_input = None
        self.streamed = False
        self.citations = []


cdef class ResponsesItem:
    """See ``_fastpath_py.ResponsesItem``: its fields are read here without an attribute lookup."""

    def __init__(self, index, str kind, item_id):
        self.index = index
        self.kind = kind
        self.item_id = item_id
        self.sent = []
        self.summary = -1
        self.streamed = False
        self.wrapper = None


cdef class AnthropicFast(FastTest):
    """The state ``chunk`` reads: the message's blocks by index, and whether the message stopped."""

    def chunk(self, item, text=None):
        """See ``_fastpath_py.AnthropicFast.chunk``."""
        return self.pair(self.read(item, text))

    cdef object hit(self, object item):
        return self.pair(self.read(item, None))

    cdef object hit_slot(self, object item):
        return self.read(item, None)

    cdef object hit_text(self, object item, object text):
        return self.read(item, text)

    cdef object form(self, object item):
        return self.shape(item)

    cdef object hit_form(self, object form, object text):
        return self.on_block(form, text)

    cdef object read(self, object item, object text):
        """``chunk`` as a slot (its text in ``found``): ``shape``, then ``on_block``."""
        cdef object index
        if self._done:
            return None
        index = self.shape(item)
        if index is None:
            return None
        return self.on_block(index, self._shaped_text if text is None else text)

    cdef object block_delta(self, object item):
        """The ``delta`` (a dict) of a ``content_block_delta`` event, its ``index`` in ``_shaped_index``;
        else ``None``. Each value found is held before anything else runs (a key's ``__eq__`` may change
        the dict)."""
        cdef PyObject* v[3]
        cdef object d = as_dict(item)
        cdef object kind, delta, held
        if d is None:
            return None
        held = view_lookup(d, ANTHROPIC_AT, 3, v)
        kind = value_of(v[0])
        delta = value_of(v[1])
        self._shaped_index = value_of(v[2])
        if kind != u"content_block_delta":
            return None
        return as_dict(delta)

    cdef object shape(self, object item):
        """The block index of an ``input_json_delta`` event (its text in ``_shaped_text``), else ``None``."""
        cdef PyObject* v[2]
        cdef object delta = self.block_delta(item)
        cdef object index = self._shaped_index
        cdef object kind, text, held
        if delta is None:
            return None
        held = view_lookup(delta, ANTHROPIC_DELTA_AT, 2, v)
        kind = value_of(v[0])
        text = value_of(v[1])
        if kind != u"input_json_delta" or type(index) is not int:
            return None
        self._shaped_text = text
        return index

    cdef object on_block(self, object index, object text):
        """``index`` (``text`` in ``found``) when block ``index`` is a tool call that streams and ``text``
        a delta; else ``None``."""
        cdef object found
        cdef AnthropicBlock block
        if self._done or type(text) is not str or not text or self._blocks is None:
            return None
        found = self._blocks.get(index)
        if type(found) is not AnthropicBlock:
            return None  # (no block, or one the adapter did not make: its general way reads it)
        block = <AnthropicBlock>found
        if block.kind != TOOL:
            return None
        block.streamed = True
        self.found = text
        return index

    def text_chunk(self, item, text=None):
        """See ``_fastpath_py.AnthropicFast.text_chunk``."""
        return self.triple(self.text_slot(item, text))

    cdef object text_slot(self, object item, object text):
        cdef PyObject* v[3]
        cdef object delta, index, kind, held, block
        cdef int want, answer
        if self._done:
            return None
        delta = self.block_delta(item)
        index = self._shaped_index
        if delta is None:
            return None
        held = view_lookup(delta, ANTHROPIC_TEXT_AT, 3, v)
        kind = value_of(v[0])
        if kind == u"text_delta":
            want = TEXT
            answer = MESSAGE_TEXT if self._plain_text else STRUCTURED_TEXT
            if text is None:
                text = value_of(v[1])
        elif kind == u"thinking_delta":
            want = THINKING
            answer = REASONING_TEXT
            if text is None:
                text = value_of(v[2])
        else:
            return None
        if type(index) is not int or type(text) is not str or not text or self._blocks is None:
            return None
        block = self._blocks.get(index)
        if type(block) is not AnthropicBlock or (<AnthropicBlock>block).kind != want:
            return None
        self.found = text
        self.found_kind = answer
        return index


cdef class ResponsesFast(FastTest):
    """The state ``chunk`` reads: the response's open items by ``item_id`` and by ``output_index``."""

    def chunk(self, item, bint anonymous=False, text=None):
        """See ``_fastpath_py.ResponsesFast.chunk``."""
        return self.pair(self.take(item, anonymous, text))

    cdef object hit(self, object item):
        return self.pair(self.take(item, False, None))

    cdef object hit_slot(self, object item):
        return self.take(item, False, None)

    cdef object hit_text(self, object item, object text):
        return self.take(item, False, text)

    cdef object form(self, object item):
        cdef object d = as_dict(item)
        cdef object item_id
        if d is None or (<dict>d).get(u"type") != u"response.function_call_arguments.delta":
            return None
        item_id = (<dict>d).get(u"item_id")
        if item_id is not None and type(item_id) is not str:
            return None
        return item_id, (<dict>d).get(u"output_index") if item_id is None else None

    cdef object hit_form(self, object form, object text):
        return self.locate((<tuple>form)[0], (<tuple>form)[1], text)

    cdef object take(self, object item, bint anonymous, object text):
        """``chunk`` for C callers (``AgentsFast``), as a slot (its text in ``found``)."""
        cdef object d = as_dict(item)
        cdef object item_id
        if d is None or (<dict>d).get(u"type") != u"response.function_call_arguments.delta":
            return None
        if text is None:
            text = (<dict>d).get(u"delta")
        if type(text) is not str or not text:
            return None
        item_id = None if anonymous else (<dict>d).get(u"item_id")
        return self.locate(item_id, (<dict>d).get(u"output_index") if item_id is None else None, text)

    cdef object locate(self, object item_id, object position, object text):
        """The index of the open function call with ``item_id`` (a str), or, with none, at ``position``,
        for a delta ``text`` (left in ``found``); else ``None``."""
        cdef object found
        cdef ResponsesItem call
        if type(text) is not str or not text:
            return None
        if type(item_id) is str:
            found = self._by_id.get(item_id) if self._by_id is not None else None
        elif item_id is None:
            found = self._by_output.get(position) if type(position) is int and self._by_output is not None else None
            if type(found) is ResponsesItem and (<ResponsesItem>found).item_id is not None:
                found = None
        else:
            found = None
        if type(found) is not ResponsesItem:
            return None  # (no item, or one the adapter did not make: its general way reads it)
        call = <ResponsesItem>found
        if call.kind != FUNCTION or call.wrapper is not None:
            return None
        call.sent.append(text)
        if not PyList_GET_SIZE(call.sent) & (PIECES_EVERY - 1):
            compact_pieces(call.sent)
        self.found = text
        return call.index

    def text_chunk(self, item, text=None):
        """See ``_fastpath_py.ResponsesFast.text_chunk``."""
        return self.triple(self.text_slot(item, text))

    cdef object text_slot(self, object item, object text):
        cdef object d = as_dict(item)
        cdef object kind, want, item_id, found, summary
        cdef ResponsesItem open_item
        if d is None:
            return None
        kind = (<dict>d).get(u"type")
        if kind == u"response.output_text.delta":
            want = MESSAGE
        elif kind == u"response.reasoning_text.delta" or kind == u"response.reasoning_summary_text.delta":
            want = REASONING
        else:
            return None
        if text is None:
            text = (<dict>d).get(u"delta")
        item_id = (<dict>d).get(u"item_id")
        if type(text) is not str or not text or type(item_id) is not str or self._by_id is None:
            return None
        found = self._by_id.get(item_id)
        if type(found) is not ResponsesItem:
            return None
        open_item = <ResponsesItem>found
        if open_item.kind != want:
            return None
        if kind == u"response.reasoning_summary_text.delta":
            summary = (<dict>d).get(u"summary_index")
            if type(summary) is not int or summary != open_item.summary:
                return None  # (a new summary part: the general way puts a blank line before it)
        open_item.streamed = True
        self.found = text
        self.found_kind = REASONING_TEXT if want is REASONING else MESSAGE_TEXT
        return open_item.index


#: providers.openai_chat._PAYLOAD: the delta fields that carry content (a chunk with another besides
#: its tool call is not the dominant chunk)
cdef tuple PAYLOAD = (u"content", u"refusal", u"tool_calls", u"function_call", u"reasoning_content", u"reasoning",
                      u"reasoning_details")
assert SCAN_NAMES[CHAT_DELTA_AT:] == (u"tool_calls",) + tuple([n for n in PAYLOAD if n != u"tool_calls"])


cdef inline object fields(object obj):
    """A wire dict as it is; an SDK (pydantic) object's fields, or ``(fields, extra)`` when it has
    both (read with ``get``, ``count`` and ``payload``: the twin merges the two, one dict per object
    is what this saves); else ``None``."""
    cdef int kind
    cdef PyMemberDef* member
    if type(obj) is dict:
        return obj
    kind = kind_and_member(type(obj), &member)
    if kind == OTHER:
        own = getattr(obj, "__dict__", None)
        extra = getattr(obj, EXTRA, None) if own is not None else None
    else:
        own = own_fields(obj)
        extra = None
        if kind == OWN_EXTRA and own is not None:
            if member != NULL:
                extra = taken(PyMember_GetOne(<const char*><PyObject*>obj, member))
            else:
                extra = taken(GenericGetAttr(obj, EXTRA))
    if extra and type(extra) is dict:
        if not own:
            return extra
        return (own, extra) if type(own) is dict else {**own, **extra, **own}
    return own


cdef inline bint is_view(object view):
    """Whether ``view`` (from ``fields``) is a mapping this module reads."""
    return type(view) is dict or type(view) is tuple


cdef inline object get(object view, str key):
    """``view[key]`` or ``None``, for a view of ``fields`` (a dict, or fields with their extras)."""
    cdef PyObject* found
    if type(view) is dict:
        found = PyDict_GetItemWithError(view, key)
    else:
        found = PyDict_GetItemWithError((<tuple>view)[0], key)
        if found == NULL:
            found = PyDict_GetItemWithError((<tuple>view)[1], key)
    return <object>found if found != NULL else None


cdef inline bint payload_besides(dict d, str own, dict over=None):
    """Whether ``d`` holds a content field (``PAYLOAD``) other than ``own`` that is not ``None``; one
    that ``over`` holds too is passed over (an extra under the name of a field of its own, which wins)."""
    for name, value in d.items():
        if value is not None and name != own and name in PAYLOAD and (over is None or name not in over):
            return True
    return False


cdef inline bint payload_besides_calls(dict d, dict over=None):
    """Whether ``d`` holds a non-empty content field (``PAYLOAD``) besides ``tool_calls`` (the usual
    ``None`` fields of an SDK object are passed over before any other test); ``over`` as above."""
    for name, value in d.items():
        if value is not None and name != u"tool_calls" and name in PAYLOAD and value and (
                over is None or name not in over):
            return True
    return False


cdef class ChatFast(FastTest):
    """The state ``chunk`` reads: the response id, whether it finished, its choices and call slots,
    and ``_hit``: what the last hit resolved (its choice state, choice number, entry index, call key,
    call id, whether the call is named, slot), valid until the adapter's general way runs (``feed``
    and ``end`` set it to ``None``), so that a run of argument deltas of one call skips the lookups
    of its state. A hit also does what ``feed`` does with ``_clean_end`` for such a chunk."""

    def chunk(self, item, text=None):
        """See ``_fastpath_py.ChatFast.chunk``."""
        return self.pair(self.read(item, text))

    cdef object hit(self, object item):
        return self.pair(self.read(item, None))

    cdef object hit_slot(self, object item):
        return self.read(item, None)

    cdef object hit_text(self, object item, object text):
        return self.read(item, text)

    cdef object form(self, object item):
        if not self.shape(item):
            return None
        return self._s_response, self._s_number, self._s_index, self._s_call, self._s_name

    cdef object hit_form(self, object form, object text):
        cdef tuple f = <tuple>form
        return self.on_call(f[0], f[1], f[2], f[3], f[4], text)

    cdef object read(self, object item, object text):
        """``chunk`` as a slot (its text in ``found``): ``shape``, then ``on_call``; a chunk whose levels
        are plain (exact dicts, or SDK objects whose fields are one dict: ``level_fields``) through
        ``argstream_chat_wire`` (the same test), whose values are held before ``on_call`` runs anything."""
        cdef PyObject* w[6]
        cdef int read
        cdef object response_id, number, index, call_id, name, arguments
        if self._finished:
            return None
        read = argstream_chat_wire(item, SCAN_KEYS, SCAN_HASHES, w, level_fields, level_own)
        if read == 0:
            return None
        if read == 1:
            response_id = value_of(w[0])
            number = ZERO if w[1] == NULL else <object>w[1]
            index = <object>w[2]
            call_id = value_of(w[3])
            name = value_of(w[4])
            arguments = value_of(w[5]) if text is None else text
            return self.on_call(response_id, number, index, call_id, name, arguments)
        if not self.shape(item):
            return None
        return self.on_call(self._s_response, self._s_number, self._s_index, self._s_call, self._s_name,
                            self._s_arguments if text is None else text)

    cdef object choice_delta(self, object item):
        """The delta (a view of ``fields``) of a chunk of one choice (no usage, error or type) that does
        not finish it, with the chunk's response id in ``_s_response`` and the choice number (0 when
        none) in ``_s_number``; else ``None``. Each level is read in one pass over its dict
        (``view_lookup``), a fraction of a lookup by name per field, and each value found is held
        before anything else runs (a key's ``__eq__`` may change the dict)."""
        cdef PyObject* v[SCAN_MAX]
        cdef object d, choices, choice, number, delta, held, response
        cdef int read
        read = argstream_chat_choice(item, SCAN_KEYS, SCAN_HASHES, v, level_fields, level_own)  # its levels in C when plain
        if read == 0:
            return None
        if read == 1:  # (each value held before a field's old value is let go, which may run code)
            response = value_of(v[0])
            number = ZERO if v[1] == NULL else <object>v[1]
            delta = <object>v[2]
            self._s_response = response
            self._s_number = number
            return delta
        d = fields(item)
        if not is_view(d):
            return None
        held = view_lookup(d, CHUNK_AT, 5, v)
        choices = value_of(v[0])
        if (v[1] != NULL and v[1] != <PyObject*>None or v[2] != NULL and v[2] != <PyObject*>None
                or v[3] != NULL and v[3] != <PyObject*>None):
            return None
        self._s_response = value_of(v[4])
        if type(choices) is not list or len(<list>choices) != 1:
            return None
        choice = fields((<list>choices)[0])
        if not is_view(choice):
            return None
        held = view_lookup(choice, CHOICE_AT, 3, v)
        number = value_of(v[1])
        delta = value_of(v[2])
        if v[0] != NULL and v[0] != <PyObject*>None:
            return None
        if number is None:
            number = 0
        elif type(number) is not int:
            return None
        self._s_number = number
        delta = fields(delta)
        return delta if is_view(delta) else None

    cdef bint shape(self, object item) except -1:
        """Whether ``item`` is a chunk of one choice (``choice_delta``) whose delta holds one tool call
        entry and no other content; if so the ``_s_*`` fields hold its response id, choice number, entry
        index (an int), call id, name and arguments."""
        cdef PyObject* v[SCAN_MAX]
        cdef object delta = self.choice_delta(item)
        cdef object entries, entry, index, call_id, function, arguments, name, held
        if delta is None:
            return False
        if type(delta) is dict and PyDict_Size(delta) == 1:  # the usual delta: one pass over its one entry
            held = view_lookup(delta, DELTA_AT, 1, v)
            entries = value_of(v[0])
        else:
            entries = get(delta, u"tool_calls")
        if type(entries) is not list or len(<list>entries) != 1:
            return False
        if type(delta) is dict:
            if len(<dict>delta) != 1 and payload_besides_calls(<dict>delta):
                return False
        elif payload_besides_calls(<dict>(<tuple>delta)[0]) or payload_besides_calls(
                <dict>(<tuple>delta)[1], <dict>(<tuple>delta)[0]):
            return False
        entry = fields((<list>entries)[0])
        if not is_view(entry):
            return False
        held = view_lookup(entry, ENTRY_AT, 3, v)
        index = value_of(v[0])
        call_id = value_of(v[1])
        function = value_of(v[2])
        if type(index) is not int:
            return False
        function = fields(function)
        if not is_view(function):
            return False
        held = view_lookup(function, FUNCTION_AT, 2, v)
        arguments = value_of(v[0])
        name = value_of(v[1])
        self._s_index = index
        self._s_call = call_id
        self._s_name = name
        self._s_arguments = arguments
        return True

    cdef object on_call(self, object response_id, object number, object index, object call_id, object name,
                        object arguments):
        """``chunk``'s answer for a chunk of ``shape``, from the stream's state: the slot (``arguments``
        in ``found``) when it is this response's, ``arguments`` is a delta and ``resolve`` finds the
        call; else ``None``."""
        cdef object slot
        if self._finished or (response_id and response_id != self._response_id):
            return None
        if type(arguments) is not str or not arguments:
            return None
        slot = self.resolve(number, index, call_id, name)
        if slot is not None:
            self.found = arguments
        return slot

    cdef object resolve(self, object number, object index, object call_id, object name):
        """The slot of choice ``number``'s entry ``index`` when an argument delta there continues the
        call streaming there (no other id, no name for a call without one); else None."""
        cdef object hit, state, key, call, slot
        hit = self._hit
        if hit is not None and ((<tuple>hit)[1] is number or (<tuple>hit)[1] == number) and (
                (<tuple>hit)[2] is index or (<tuple>hit)[2] == index):  # (small ints are one object each)
            if (call_id and call_id != (<tuple>hit)[4]) or (name and not (<tuple>hit)[5]):
                return None
            return (<tuple>hit)[6]
        state = self._choices.get(number) if self._choices is not None else None
        if state is None:
            return None
        key = state.current.get(index)
        if key is None:
            return None
        call = state.calls.get(key)
        slot = self._slots._map.get(key)  # Slots.get, without its Python frame
        if call is None or slot is None or (call_id and call_id != call.id) or (name and not call.name):
            return None
        self._hit = (state, number, index, key, call.id, bool(call.name), slot)
        self._clean_end = False  # as ``feed`` has it after a chunk with a choice (a later hit: no ``feed`` since)
        state.last_call = key
        return slot

    def text_chunk(self, item, text=None):
        """See ``_fastpath_py.ChatFast.text_chunk``."""
        return self.triple(self.text_slot(item, text))

    cdef object text_slot(self, object item, object text):
        cdef object delta, number, content, state, slot
        cdef str field
        if self._finished:
            return None
        delta = self.choice_delta(item)
        if delta is None or (self._s_response and self._s_response != self._response_id):
            return None
        number = self._s_number
        field = u"content"
        content = get(delta, field)
        if content is None:
            field = u"reasoning_content"
            content = get(delta, field)
            if content is None:
                field = u"reasoning"
                content = get(delta, field)
        if type(content) is not str or not content:
            return None
        if text is not None:
            content = text
            if type(content) is not str or not content:
                return None
        if type(delta) is dict:
            if payload_besides(<dict>delta, field):
                return None
        elif payload_besides(<dict>(<tuple>delta)[0], field) or payload_besides(
                <dict>(<tuple>delta)[1], field, <dict>(<tuple>delta)[0]):
            return None
        state = self._choices.get(number) if self._choices is not None else None
        slot = self._slots._map.get((number, u"content" if field == u"content" else u"reasoning")) if (
            state is not None) else None  # Slots.get, without its Python frame
        if slot is None:
            return None
        self._hit = None
        self._clean_end = False
        self.found = content
        if field != u"content":
            self.found_kind = REASONING_TEXT
        else:
            self.found_kind = MESSAGE_TEXT if self._plain_text else STRUCTURED_TEXT
        return slot


#: providers.langchain._FINISH_KEYS: the ``response_metadata`` keys that hold a provider's finish value
cdef tuple FINISH_KEYS = (u"finish_reason", u"stop_reason", u"done_reason")


cdef inline bint may_finish(dict metadata):
    """Whether a ``response_metadata`` dict may end the response: a finish key set, or an ``object``
    that may be a Responses terminal event (the adapter's general way decides; the usual metadata,
    the model's name and provider, holds neither)."""
    cdef object kind
    for key in FINISH_KEYS:
        if metadata.get(key) is not None:
            return True
    kind = metadata.get(u"object")
    return kind is not None and (type(kind) is not str or kind == u"response")


cdef inline object object_fields(object item):
    """An object's ``__dict__`` (not a wire dict's: the frameworks stream objects), else ``None``."""
    cdef object d
    if type(item) is dict:
        return None
    if kind_of(type(item)) != OTHER:
        d = own_fields(item)
    else:
        d = getattr(item, "__dict__", None)
    return d if type(d) is dict else None


cdef class LangChainFast(FastTest):
    """The state ``chunk`` reads: whether the response finished, the calls by key, the call streaming
    at each ``tool_call_chunks[].index``, the slots; the adapter's ``_finishes(metadata)`` and
    ``_reasons(extra)`` read a non-empty ``response_metadata`` that is not a dict (``may_finish`` reads
    a dict) and a non-empty ``additional_kwargs``."""

    def chunk(self, item):
        """See ``_fastpath_py.LangChainFast.chunk``."""
        return self.hit(item)

    cdef object hit(self, object item):
        cdef object d = object_fields(item)
        cdef object entries, metadata, extra, entry, position, args, key, index
        if d is None or self._finished or (<dict>d).get(u"type") != u"AIMessageChunk" or (
                <dict>d).get(u"content"):
            return None
        entries = (<dict>d).get(u"tool_call_chunks")
        if type(entries) is not list or len(<list>entries) != 1:
            return None
        metadata = (<dict>d).get(u"response_metadata")
        extra = (<dict>d).get(u"additional_kwargs")
        if metadata and (may_finish(<dict>metadata) if type(metadata) is dict else self._finishes(metadata)):
            return None
        if (extra and self._reasons(extra)) or (
                self._finish_on_last and (<dict>d).get(u"chunk_position") == u"last"):
            return None
        entry = (<list>entries)[0]
        if type(entry) is not dict or (<dict>entry).get(u"id") or (<dict>entry).get(u"name"):
            return None
        position = (<dict>entry).get(u"index")
        args = (<dict>entry).get(u"args")
        key = self._current.get(position) if type(position) is int and self._current is not None else None
        index = self._slots._map.get(key) if key is not None and self._calls is not None and key in self._calls else None
        if index is None or type(args) is not str or not args:
            return None
        self._last_call = key
        return index, args


cdef class PydanticAIFast(FastTest):
    """The state ``chunk`` reads: the response's open parts by pydantic-ai's index, and the slots."""

    def chunk(self, item):
        """See ``_fastpath_py.PydanticAIFast.chunk``."""
        return self.hit(item)

    cdef object hit(self, object item):
        cdef object d = object_fields(item)
        cdef object position, state, delta, call_id, args, index
        if d is None or (<dict>d).get(u"event_kind") != u"part_delta":
            return None
        position = (<dict>d).get(u"index")
        state = self._parts.get(position) if type(position) is int and self._parts is not None else None
        delta = object_fields((<dict>d).get(u"delta"))
        if state is None or state.kind != PART_TOOL or delta is None:
            return None
        call_id = (<dict>delta).get(u"tool_call_id")
        if ((<dict>delta).get(u"part_delta_kind") != u"tool_call" or (<dict>delta).get(u"tool_name_delta")
                or (call_id and call_id != state.id)):
            return None
        args = (<dict>delta).get(u"args_delta")
        index = self._slots._map.get(position)  # Slots.get, without its Python frame
        if type(args) is not str or not args or index is None:
            return None
        return index, args


cdef class AgentsFast(FastTest):
    """The state ``chunk`` reads: the Responses adapter the Agents SDK's raw events go to."""

    def chunk(self, item):
        """See ``_fastpath_py.AgentsFast.chunk``."""
        return self.hit(item)

    cdef object hit(self, object item):
        cdef object d = object_fields(item)
        cdef object data, inner
        cdef ResponsesFast responses
        cdef bint anonymous
        if d is None or (<dict>d).get(u"type") != u"raw_response_event":
            return None
        data = (<dict>d).get(u"data")
        inner = as_dict(data)
        anonymous = inner is not None and (<dict>inner).get(u"item_id") == PLACEHOLDER
        if isinstance(self._responses, ResponsesFast):
            responses = <ResponsesFast>self._responses
            return responses.pair(responses.take(data, anonymous, None))
        return self._responses.chunk(data, anonymous)


cdef class WholeCallFast(FastTest):
    """What the adapters of calls sent whole (Gemini, Ollama) share: ``WholeCallAdapter``'s state (after
    the subclass in the adapter's MRO) and its numbering of a wire item's calls."""

    cdef tuple take_calls(self, list found, object prefix):
        """``WholeCallAdapter._take_calls`` (the twins' ``call_chunk`` call that), compiled."""
        cdef object closed = None, run = self._text, name, arguments, call_id, index
        cdef list calls = []
        cdef dict meta
        if run is not None:
            closed = run[0]
        self._text = None
        for name, arguments, call_id in found:
            meta = {}
            if not call_id:
                call_id = f"{prefix}-call-{self._calls}"
                meta[u"id_generated"] = True
            self._calls += 1
            index = self._next_index
            self._next_index = index + 1
            calls.append((index, call_id, name, arguments, meta))
        self._response_calls = True
        return closed, calls

    cdef object text_run(self, bint reasoning):
        """See ``_fastpath_py.WholeCallFast._text_run``."""
        cdef object cls = (REASONING_CLASS if reasoning else MESSAGE_CLASS) if MESSAGE_CLASS is not None else None
        cdef object run = self._text
        if cls is None:
            cls = text_classes()[1 if reasoning else 0]
        if run is not None:
            return run if run[1] is cls else None
        run = (self._next_index, cls)
        self._next_index = self._next_index + 1
        self._text = run
        return run


cdef class GeminiFast(WholeCallFast):
    """The state ``chunk`` reads: the streamed call still open (``(index, writer)``), the response id,
    whether the response finished, and ``_sink``, the open string a run of Vertex pieces continues
    (see the twin)."""

    def chunk(self, item, text=None):
        """See ``_fastpath_py.GeminiFast.chunk``."""
        return self.pair(self.read(item, text))

    cdef object hit(self, object item):
        return self.pair(self.read(item, None))

    cdef object hit_slot(self, object item):
        return self.read(item, None)

    cdef object hit_text(self, object item, object text):
        return self.read(item, text)

    cdef object read(self, object item, object text):
        """``chunk`` as a slot (its text in ``found``): ``shape``, then the open string's sink."""
        cdef object value, path, sink, pieces
        cdef str encoded
        if self._call is None or type(item) is not dict:
            return None
        if not self.shape(<dict>item):
            return None
        value = self._s_value
        path = self._s_path
        self._s_value = self._s_path = None
        if text is not None:
            value = text if type(value) is str else None
        if type(value) is not str or not value or type(path) is not str:
            return None
        if self._response_id is None and (u"responseId" in <dict>item or u"response_id" in <dict>item):
            return None  # the general way reads it
        sink = self._sink
        if sink is None or sink[0] != path:
            sink = self._open_string(path)
            if sink is None:
                return None
            self._sink = sink
        pieces = sink[2]
        if not isinstance(pieces, list):
            raise TypeError(f"_open_string() gave {type(pieces).__name__} pieces, not a list")
        self._finished = False
        (<list>pieces).append(value)  # ``list.append``, as the twin calls it (the writer's list is a subclass)
        if not PyList_GET_SIZE(pieces) & (PIECES_EVERY - 1):
            compact_pieces(pieces)
        if escaped_length(<str>value) == PyUnicode_GET_LENGTH(value) + 2:
            self.found = value  # nothing to escape (the usual piece): the value is its own JSON text
        else:
            encoded = ENCODE_STRING(value)
            self.found = encoded[1:len(encoded) - 1]
        return sink[1]

    def text_chunk(self, item, text=None):
        """See ``_fastpath_py.GeminiFast.text_chunk``."""
        return self.triple(self.text_slot(item, text))

    cdef object text_slot(self, object item, object text):
        cdef object candidates, candidate, content, parts, part, got, signature, response_id, read
        cdef bint reasoning
        if self._call is not None:
            return None
        if type(item) is not dict:
            read = self._text_read(item)
            if read is None:
                return None
            return self.text_hit((<tuple>read)[0], (<tuple>read)[1], (<tuple>read)[2] if text is None else text)
        candidates = (<dict>item).get(u"candidates")
        candidate = (<list>candidates)[0] if type(candidates) is list and len(<list>candidates) == 1 else None
        if type(candidate) is not dict or (<dict>candidate).get(u"finishReason") is not None:
            return None
        content = (<dict>candidate).get(u"content")
        parts = (<dict>content).get(u"parts") if type(content) is dict else None
        part = (<list>parts)[0] if type(parts) is list and len(<list>parts) == 1 else None
        if type(part) is not dict or (<dict>candidate).get(u"finish_reason") is not None:
            return None
        got = (<dict>part).get(u"text")
        if (type(got) is not str or not got or (<dict>part).get(u"functionCall") is not None
                or (<dict>part).get(u"function_call") is not None):
            return None
        try:
            signature = (<dict>part).get(u"thoughtSignature")
            if signature or (signature is None and (<dict>part).get(u"thought_signature")):
                return None
            reasoning = bool((<dict>part).get(u"thought"))
            response_id = (<dict>item).get(u"responseId")
            if response_id is None:
                response_id = (<dict>item).get(u"response_id")
            response_id = response_id or None
        except Exception:
            return None
        return self.text_hit(reasoning, response_id, got if text is None else text)

    cdef object text_hit(self, bint reasoning, object response_id, object text):
        """See ``_fastpath_py.GeminiFast._text_hit`` (the slot; text and kind in ``found``, ``found_kind``)."""
        cdef object run = self.text_run(reasoning)
        if run is None:
            return None
        if response_id is not None and self._response_id is None:
            self._response_id = response_id
        self._finished = False
        self.found = text
        self.found_kind = REASONING_TEXT if reasoning else MESSAGE_TEXT
        return run[0]

    def call_chunk(self, item):
        """See ``_fastpath_py.GeminiFast.call_chunk``."""
        cdef object candidates, candidate, content, parts, part, call, name, args, call_id, reason, usage
        cdef object response_id, walkable, closed, calls, end
        cdef list found
        cdef dict meta
        if type(item) is not dict or self._call is not None or not self.whole_values:
            return None
        candidates = (<dict>item).get(u"candidates")
        candidate = (<list>candidates)[0] if type(candidates) is list and len(<list>candidates) == 1 else None
        if type(candidate) is not dict or u"finish_reason" in <dict>candidate:
            return None
        content = (<dict>candidate).get(u"content")
        parts = (<dict>content).get(u"parts") if type(content) is dict else None
        if type(parts) is not list or not parts:
            return None
        walkable = WALKABLE if WALKABLE is not None else walkable_test()
        found = []
        for part in <list>parts:
            call = (<dict>part).get(u"functionCall") if type(part) is dict and len(<dict>part) == 1 else None
            if type(call) is not dict:
                return None
            name = (<dict>call).get(u"name")
            args = (<dict>call).get(u"args")
            call_id = (<dict>call).get(u"id")
            if (type(name) is not str or not name or type(args) is not dict
                    or len(<dict>call) != 2 + (u"id" in <dict>call)
                    or (call_id is not None and type(call_id) is not str) or not walkable(args)):
                return None
            found.append((name, args, call_id))
        if u"usage_metadata" in <dict>item or u"response_id" in <dict>item:
            return None
        reason = (<dict>candidate).get(u"finishReason")
        usage = (<dict>item).get(u"usageMetadata")
        response_id = (<dict>item).get(u"responseId")
        if (reason is not None and type(reason) is not str) or (
                response_id is not None and type(response_id) is not str):
            return None
        if reason and usage is not None:
            usage = json_copy(usage, 0)
            if usage is NOT_JSON:
                return None
        if response_id and self._response_id is None:
            self._response_id = response_id
        closed, calls = self.take_calls(found, self._response_id or u"gemini")
        self._finished = False
        end = None
        if reason:
            self._finished = True
            meta = {u"stop_reason": reason}
            if usage is not None:
                meta[u"usage"] = usage
            end = self._finish(reason, meta)
            self._response_calls = False
        return closed, calls, end

    cdef bint shape(self, dict item) except -1:
        """Whether ``item`` is a chunk of one candidate, no finish, one part, a ``functionCall`` of
        ``partialArgs`` and ``willContinue: true`` alone, its one piece of three fields and
        ``willContinue: true``: then the piece's ``stringValue`` and ``jsonPath`` are in ``_s_value`` and
        ``_s_path``. Each value is held as soon as it is found (a key's ``__eq__`` may change the dicts
        while they are read). (A pass over each dict, as ``argstream_scan`` makes, measured no cheaper
        than these lookups: the dicts are small.)"""
        cdef object candidates, candidate, content, parts, part, call, pieces, piece
        candidates = item.get(u"candidates")
        if type(candidates) is not list or len(<list>candidates) != 1:
            return False
        candidate = (<list>candidates)[0]
        if type(candidate) is not dict or u"finishReason" in <dict>candidate or u"finish_reason" in <dict>candidate:
            return False
        content = (<dict>candidate).get(u"content")
        parts = (<dict>content).get(u"parts") if type(content) is dict else None
        if type(parts) is not list or len(<list>parts) != 1:
            return False
        part = (<list>parts)[0]
        call = (<dict>part).get(u"functionCall") if type(part) is dict and len(<dict>part) == 1 else None
        if type(call) is not dict or len(<dict>call) != 2 or (<dict>call).get(u"willContinue") is not True:
            return False
        pieces = (<dict>call).get(u"partialArgs")
        if type(pieces) is not list or len(<list>pieces) != 1:
            return False
        piece = (<list>pieces)[0]
        if type(piece) is not dict or len(<dict>piece) != 3 or (<dict>piece).get(u"willContinue") is not True:
            return False
        self._s_value = (<dict>piece).get(u"stringValue")
        self._s_path = (<dict>piece).get(u"jsonPath")
        return True


cdef class OllamaFast(WholeCallFast):
    """The state Ollama's tests read: the first ``created_at`` (for generated ids), whether the response
    has made no part yet, and the held ``Finished`` of an empty load response (see the twin)."""

    def text_chunk(self, item, text=None):
        """See ``_fastpath_py.OllamaFast.text_chunk``."""
        return self.triple(self.text_slot(item, text))

    cdef object text_slot(self, object item, object text):
        cdef object run, message, thinking, content, created, got, read
        cdef bint reasoning
        message = (<dict>item).get(u"message") if type(item) is dict else None
        try:
            if type(message) is dict:  # a wire line: what the reads below find, with dict lookups
                if (<dict>item).get(u"error") is not None or (<dict>item).get(u"done"):
                    return None
                thinking = (<dict>message).get(u"thinking")
                content = (<dict>message).get(u"content")
                if thinking is None:
                    thinking = u""
                if content is None:
                    content = u""
                if (<dict>message).get(u"tool_calls"):
                    return None
                created = (<dict>item).get(u"created_at") if self._created is None else None
            else:
                read = self._text_read(item)
                if read is None:
                    return None
                thinking, content, created = <tuple>read
            if thinking and content:
                return None
            reasoning = bool(thinking)
        except Exception:  # the general way raises what it finds
            return None
        got = thinking if reasoning else content
        if type(got) is not str or not got:
            return None
        run = self.text_run(reasoning)
        if run is None:
            return None
        if self._created is None:
            self._created = created
        self._held = None
        self._empty = False
        self.found = got if text is None else text
        self.found_kind = REASONING_TEXT if reasoning else MESSAGE_TEXT
        return run[0]

    def call_chunk(self, item):
        """See ``_fastpath_py.OllamaFast.call_chunk``."""
        cdef object message, entries, entry, function, name, args, call_id, done_reason, closed, calls, end
        cdef object walkable
        cdef list found
        cdef bint done
        if type(item) is not dict or not self.whole_values:
            return None
        try:
            message = (<dict>item).get(u"message")
            if ((<dict>item).get(u"error") is not None or type(message) is not dict
                    or (<dict>message).get(u"thinking") or (<dict>message).get(u"content")):
                return None
            entries = (<dict>message).get(u"tool_calls")
            if entries is not None:
                if type(entries) is not list or not entries:
                    return None
                walkable = WALKABLE if WALKABLE is not None else walkable_test()
                found = []
                for entry in <list>entries:
                    function = (<dict>entry).get(u"function") if type(entry) is dict else None
                    if type(function) is not dict:
                        return None
                    name = (<dict>function).get(u"name")
                    args = (<dict>function).get(u"arguments")
                    call_id = (<dict>entry).get(u"id")
                    if ((name is not None and type(name) is not str)
                            or (call_id is not None and type(call_id) is not str)
                            or type(args) is not dict or not walkable(args)):
                        return None
                    found.append((name or u"", args, call_id))
                done = bool((<dict>item).get(u"done"))
        except Exception:  # a value whose truth cannot be asked: the general way raises what it finds
            return None
        if entries is None:
            return self.done_line(<dict>item)
        done_reason = (<dict>item).get(u"done_reason") if done else None
        if done_reason is not None and type(done_reason) is not str:
            return None
        self._held = None
        if self._created is None:
            self._created = (<dict>item).get(u"created_at")
        closed, calls = self.take_calls(found, self._created or u"ollama")
        end = None
        if done:
            end = self._finished(item, done_reason)
            self._empty = True
        else:
            self._empty = False
        return closed, calls, end

    cdef object done_line(self, dict item):
        """See ``_fastpath_py.OllamaFast._done_line``."""
        cdef object done_reason = item.get(u"done_reason"), closed = None, end
        if item.get(u"done") is not True or type(done_reason) is not str or done_reason in (u"load", u"unload"):
            return None
        self._held = None
        if self._created is None:
            self._created = item.get(u"created_at")
        if self._text is not None:
            closed = self._text[0]
        self._text = None
        end = self._finished(item, done_reason)
        self._empty = True
        return closed, [], end


cdef object MESSAGE_CLASS = None  # ``events.Message`` and ``Reasoning``, the kinds of a text run (``text_classes``)
cdef object REASONING_CLASS = None
cdef object WALKABLE = None  # ``providers._common._walkable`` (``walkable_test``)
cdef object NOT_JSON = object()
cdef int JSON_COPY_DEPTH = 32  # ``_fastpath_py.JSON_COPY_DEPTH``


cdef tuple text_classes():
    """``(Message, Reasoning)``, imported when first asked (``events`` imports this module's backend)."""
    global MESSAGE_CLASS, REASONING_CLASS
    from argstream.events import Message, Reasoning
    MESSAGE_CLASS, REASONING_CLASS = Message, Reasoning
    return MESSAGE_CLASS, REASONING_CLASS


cdef object walkable_test():
    """``providers._common._walkable``, imported when first asked (as ``text_classes``)."""
    global WALKABLE
    from argstream.providers._common import _walkable
    WALKABLE = _walkable
    return WALKABLE


def present(dict item, tuple names):
    """``_fastpath_py.present``: each of ``names`` that ``item`` holds with a value other than ``None``, in
    the order of ``names`` (a usage block read at every response's end)."""
    cdef dict out = {}
    cdef object name, value
    for name in names:
        value = item.get(name)
        if value is not None:
            out[name] = value
    return out


cdef object json_copy(object value, int depth):
    """See ``_fastpath_py._json_copy`` (``NOT_JSON`` for anything but JSON values of their exact types)."""
    cdef object kind = type(value)
    cdef object key, item, copied
    cdef dict out
    cdef list items
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if depth >= JSON_COPY_DEPTH:
        return NOT_JSON
    if kind is dict:
        out = {}
        for key, item in (<dict>value).items():
            if type(key) is not str:
                return NOT_JSON
            copied = json_copy(item, depth + 1)
            if copied is NOT_JSON:
                return NOT_JSON
            out[key] = copied
        return out
    if kind is list:
        items = []
        for item in <list>value:
            copied = json_copy(item, depth + 1)
            if copied is NOT_JSON:
                return NOT_JSON
            items.append(copied)
        return items
    return NOT_JSON


COMPILED = (AnthropicFast, ResponsesFast, ChatFast, GeminiFast, OllamaFast, LangChainFast, PydanticAIFast, AgentsFast)
