# cython: language_level=3, embedsignature=True, binding=False
"""The adapters' fast tests in C: twins of ``_fastpath_py``, which they follow line by line.

Each class is the base of one provider adapter (``providers.anthropic.AnthropicAdapter``,
``providers.openai_responses.ResponsesAdapter``) and holds the state its ``chunk`` reads, so that
the test for the provider's dominant event (an argument delta of a call already started) runs
without a Python frame: a few dict lookups, and ``(index, text)`` or ``None``, with nothing
changed when it declines.
"""

cimport cython

cdef int TOOL = 2  # providers.anthropic._TOOL
cdef str FUNCTION = u"function_call"  # providers.openai_responses._FUNCTION


cdef inline object as_dict(object item):
    """A wire dict as it is, an SDK object's fields (``__dict__``), else ``None``."""
    if type(item) is dict:
        return item
    d = getattr(item, "__dict__", None)
    return d if type(d) is dict else None


cdef class AnthropicFast:
    """The state ``chunk`` reads: the message's blocks by index, and whether the message stopped."""
    cdef public dict _blocks
    cdef public bint _done

    def chunk(self, item, text=None):
        """See ``_fastpath_py.AnthropicFast.chunk``."""
        cdef object d = as_dict(item)
        cdef object delta, index, block
        if d is None or self._done or (<dict>d).get(u"type") != u"content_block_delta":
            return None
        delta = as_dict((<dict>d).get(u"delta"))
        if delta is None or (<dict>delta).get(u"type") != u"input_json_delta":
            return None
        if text is None:
            text = (<dict>delta).get(u"partial_json")
        index = (<dict>d).get(u"index")
        if type(index) is not int or type(text) is not str or not text or self._blocks is None:
            return None
        block = self._blocks.get(index)
        if block is None or block.kind != TOOL:
            return None
        block.streamed = True
        return index, text


cdef class ResponsesFast:
    """The state ``chunk`` reads: the response's open items by ``item_id`` and by ``output_index``."""
    cdef public dict _by_id
    cdef public dict _by_output

    def chunk(self, item, bint anonymous=False, text=None):
        """See ``_fastpath_py.ResponsesFast.chunk``."""
        cdef object d = as_dict(item)
        cdef object item_id, position, call
        if d is None or (<dict>d).get(u"type") != u"response.function_call_arguments.delta":
            return None
        if text is None:
            text = (<dict>d).get(u"delta")
        if type(text) is not str or not text:
            return None
        item_id = None if anonymous else (<dict>d).get(u"item_id")
        if type(item_id) is str:
            call = self._by_id.get(item_id) if self._by_id is not None else None
        elif item_id is None:
            position = (<dict>d).get(u"output_index")
            call = self._by_output.get(position) if type(position) is int and self._by_output is not None else None
            if call is not None and call.item_id is not None:
                call = None
        else:
            call = None
        if call is None or call.kind != FUNCTION or call.wrapper is not None:
            return None
        call.sent.append(text)
        return call.index, text


#: providers.openai_chat._PAYLOAD: the delta fields that carry content (a chunk with another besides
#: its tool call is not the dominant chunk)
cdef tuple PAYLOAD = (u"content", u"refusal", u"tool_calls", u"function_call", u"reasoning_content", u"reasoning",
                      u"reasoning_details")


cdef inline object fields(object obj):
    """A wire dict as it is; an SDK (pydantic) object's fields with its extra ones; else ``None``."""
    if type(obj) is dict:
        return obj
    own = getattr(obj, "__dict__", None)
    extra = getattr(obj, "__pydantic_extra__", None) if own is not None else None
    if extra and type(extra) is dict:
        return {**own, **extra} if own else extra
    return own


cdef class ChatFast:
    """The state ``chunk`` reads: the response id, whether it finished, its choices and call slots."""
    cdef public dict _choices
    cdef public object _slots
    cdef public object _response_id
    cdef public bint _finished

    def chunk(self, item, text=None):
        """See ``_fastpath_py.ChatFast.chunk``."""
        cdef object d = as_dict(item)
        cdef object choices, response_id, choice, number, state, delta, entries, entry, index, key, call
        cdef object call_id, function, arguments, slot, name, value
        if d is None or self._finished:
            return None
        choices = (<dict>d).get(u"choices")
        if (type(choices) is not list or len(<list>choices) != 1 or (<dict>d).get(u"usage") is not None
                or (<dict>d).get(u"error") is not None or (<dict>d).get(u"type") is not None):
            return None
        response_id = (<dict>d).get(u"id")
        if response_id and response_id != self._response_id:
            return None
        choice = fields((<list>choices)[0])
        if type(choice) is not dict or (<dict>choice).get(u"finish_reason") is not None:
            return None
        number = (<dict>choice).get(u"index")
        if number is None:
            number = 0
        elif type(number) is not int:
            return None
        state = self._choices.get(number) if self._choices is not None else None
        delta = fields((<dict>choice).get(u"delta"))
        if state is None or type(delta) is not dict:
            return None
        entries = (<dict>delta).get(u"tool_calls")
        if type(entries) is not list or len(<list>entries) != 1:
            return None
        if len(<dict>delta) != 1:
            for name, value in (<dict>delta).items():
                if value and name in PAYLOAD and name != u"tool_calls":
                    return None
        entry = fields((<list>entries)[0])
        if type(entry) is not dict:
            return None
        index = (<dict>entry).get(u"index")
        key = state.current.get(index) if type(index) is int else None
        if key is None:
            return None
        call = state.calls.get(key)
        call_id = (<dict>entry).get(u"id")
        function = fields((<dict>entry).get(u"function"))
        if call is None or (call_id and call_id != call.id) or type(function) is not dict or (
                (<dict>function).get(u"name") and not call.name):
            return None
        arguments = (<dict>function).get(u"arguments") if text is None else text
        slot = self._slots._map.get(key)  # Slots.get, without its Python frame
        if type(arguments) is not str or not arguments or slot is None:
            return None
        state.last_call = key
        return slot, arguments
