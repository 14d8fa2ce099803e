# cython: language_level=3, embedsignature=True, freethreading_compatible=True
"""The compiled fragment types: twins of ``_fragments_py``'s dataclasses.

Same fields, equality, hashing, ``repr``, pickling and ``__match_args__``; an
instance also equals the twin's instance with the same fields, so fragments of
either parser compare as the values they are. ``ArrayItem`` and ``ObjectEntry``
free a chain of nested entries iteratively: one a million levels deep does not
recurse on the C stack when it is dropped (see ``argstream_link_dealloc``).
"""

cimport cython

cdef extern from *:
    """
    /* ObjectEntry and ArrayItem ("links") as their Cython structs lay them out; checked at import. */
    typedef struct { PyObject_HEAD PyObject *first; PyObject *value; } argstream_link;

    static PyTypeObject *argstream_link_type[2];
    static destructor argstream_link_base[2];   /* Cython's own tp_dealloc of each */

    static inline int argstream_sole_link(PyObject *o) {
        return o != NULL && Py_REFCNT(o) == 1
            && (Py_TYPE(o) == argstream_link_type[0] || Py_TYPE(o) == argstream_link_type[1]);
    }

    /* Frees a link. A child link held only here is detached first, and so on down the chain, so each
       link is freed with no child link left to recurse into: the C stack stays flat at any depth. The
       common case (a leaf child) costs two type compares over Cython's dealloc, where the trashcan
       cost a thread-state lookup per object. */
    static void argstream_link_dealloc(PyObject *o) {
        PyObject *child = ((argstream_link *)o)->value;
        if (argstream_sole_link(child)) {
            PyObject_GC_UnTrack(o);  /* nothing may see o while its refcount is 0 (Cython's dealloc repeats this) */
            ((argstream_link *)o)->value = NULL;
            for (;;) {
                PyObject *next = ((argstream_link *)child)->value;
                int more = argstream_sole_link(next);
                if (more) ((argstream_link *)child)->value = NULL;
                Py_DECREF(child);
                if (!more) break;
                child = next;
            }
        }
        argstream_link_base[Py_TYPE(o) == argstream_link_type[1]](o);
    }

    static int argstream_hook_links(PyObject *entry, PyObject *item, PyObject *probe_entry, PyObject *probe_item,
                                    PyObject *marker) {
        if (((argstream_link *)probe_entry)->value != marker || ((argstream_link *)probe_item)->value != marker) {
            PyErr_SetString(PyExc_SystemError, "argstream: unexpected layout of ObjectEntry/ArrayItem");
            return -1;
        }
        argstream_link_type[0] = (PyTypeObject *)entry;
        argstream_link_type[1] = (PyTypeObject *)item;
        argstream_link_base[0] = ((PyTypeObject *)entry)->tp_dealloc;
        argstream_link_base[1] = ((PyTypeObject *)item)->tp_dealloc;
        ((PyTypeObject *)entry)->tp_dealloc = argstream_link_dealloc;
        ((PyTypeObject *)item)->tp_dealloc = argstream_link_dealloc;
        return 0;
    }
    """
    int argstream_hook_links(object entry, object item, object probe_entry, object probe_item,
                             object marker) except -1

from argstream._fragments_py import ArrayItem as _PyArrayItem, ObjectEntry as _PyObjectEntry
from argstream._fragments_py import Scalar as _PyScalar, String as _PyString


@cython.final
@cython.freelist(64)
cdef class Scalar:
    """A complete ``null``, ``true``/``false`` or number, as ``json.loads`` gives it."""
    __match_args__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        if type(other) is Scalar:
            return (self.value,) == ((<Scalar>other).value,)
        if type(other) is _PyScalar:
            return (self.value,) == (other.value,)
        return NotImplemented

    def __hash__(self):
        return hash((self.value,))

    def __repr__(self):
        return f"Scalar(value={self.value!r})"

    def __reduce__(self):
        return (Scalar, (self.value,))


@cython.final
@cython.freelist(64)
cdef class String:
    """One chunk of decoded string data; never empty."""
    __match_args__ = ("text",)

    def __init__(self, str text):
        self.text = text

    def __eq__(self, other):
        if type(other) is String:
            return self.text == (<String>other).text
        if type(other) is _PyString:
            return self.text == other.text
        return NotImplemented

    def __hash__(self):
        return hash((self.text,))

    def __repr__(self):
        return f"String(text={self.text!r})"

    def __reduce__(self):
        return (String, (self.text,))


@cython.final
@cython.freelist(1024)
cdef class ArrayItem:
    """``value`` is the inner fragment for array item ``index``."""
    __match_args__ = ("index", "value")

    def __init__(self, index, value):
        self.index = index
        self.value = value

    def __eq__(self, other):
        if type(other) is ArrayItem:
            return (self.index, self.value) == ((<ArrayItem>other).index, (<ArrayItem>other).value)
        if type(other) is _PyArrayItem:
            return (self.index, self.value) == (other.index, other.value)
        return NotImplemented

    def __hash__(self):
        return hash((self.index, self.value))

    def __repr__(self):
        return f"ArrayItem(index={self.index!r}, value={self.value!r})"

    def __reduce__(self):
        return (ArrayItem, (self.index, self.value))


@cython.final
@cython.freelist(1024)
cdef class ObjectEntry:
    """``value`` is the inner fragment for object member ``key``."""
    __match_args__ = ("key", "value")

    def __init__(self, key, value):
        self.key = key
        self.value = value

    def __eq__(self, other):
        if type(other) is ObjectEntry:
            return (self.key, self.value) == ((<ObjectEntry>other).key, (<ObjectEntry>other).value)
        if type(other) is _PyObjectEntry:
            return (self.key, self.value) == (other.key, other.value)
        return NotImplemented

    def __hash__(self):
        return hash((self.key, self.value))

    def __repr__(self):
        return f"ObjectEntry(key={self.key!r}, value={self.value!r})"

    def __reduce__(self):
        return (ObjectEntry, (self.key, self.value))


cdef Scalar new_scalar(object value):
    cdef Scalar s = Scalar.__new__(Scalar)
    s.value = value
    return s


cdef String new_string(str text):
    cdef String s = String.__new__(String)
    s.text = text
    return s


cdef ArrayItem new_array_item(object index, object value):
    cdef ArrayItem item = ArrayItem.__new__(ArrayItem)
    item.index = index
    item.value = value
    return item


cdef ObjectEntry new_object_entry(object key, object value):
    cdef ObjectEntry entry = ObjectEntry.__new__(ObjectEntry)
    entry.key = key
    entry.value = value
    return entry


def _hook_links():
    marker = object()
    argstream_hook_links(ObjectEntry, ArrayItem, ObjectEntry(None, marker), ArrayItem(0, marker), marker)


_hook_links()
