# cython: language_level=3
"""The adapters' fast tests, for Cython code that runs them per item (the fused pipeline, the
coordinator): ``FastTest.hit`` is the test a compiled adapter's ``chunk(item)`` runs, called
without the bound method, its argument parsing and its Python call; ``hit_slot`` the same without
the ``(slot, text)`` tuple (the slot returned, the text left in ``found``)."""


from cpython.ref cimport PyObject


cdef class FastTest:
    cdef object found  # the argument text of the last slot a tuple-free test returned (kept until the next)
    cdef public int found_kind  # what the text of the last slot ``text_slot`` returned is (``MESSAGE_TEXT``, ...)

    cdef object hit(self, object item)
    cdef object hit_slot(self, object item)
    cdef object hit_text(self, object item, object text)
    cdef object form(self, object item)
    cdef object hit_form(self, object form, object text)
    cdef object text_slot(self, object item, object text)
    cdef object unpack(self, object got)
    cdef object pair(self, object slot)
    cdef object triple(self, object slot)


cpdef object fast_test(object chunk, str name=*)


cdef class AnthropicBlock:
    cdef public int kind
    cdef public object whole_input
    cdef public bint streamed
    cdef public list citations


cdef class ResponsesItem:
    cdef public object index
    cdef public str kind
    cdef public object item_id
    cdef public list sent
    cdef public object summary
    cdef public bint streamed
    cdef public object wrapper


cdef class AnthropicFast(FastTest):
    cdef public dict _blocks
    cdef public bint _done
    cdef public bint _plain_text

    cdef object _shaped_text  # the text ``shape`` found
    cdef object _shaped_index  # the block index ``block_delta`` found

    cdef object read(self, object item, object text)
    cdef object block_delta(self, object item)
    cdef object shape(self, object item)
    cdef object on_block(self, object index, object text)


cdef class ResponsesFast(FastTest):
    cdef public dict _by_id
    cdef public dict _by_output

    cdef object take(self, object item, bint anonymous, object text)
    cdef object locate(self, object item_id, object position, object text)


cdef class ChatFast(FastTest):
    cdef public dict _choices
    cdef public object _slots
    cdef public object _response_id
    cdef public bint _finished
    cdef public object _hit
    cdef public bint _plain_text
    cdef public bint _clean_end  # the last item ended a stream the way servers do (the adapter's ``feed``)

    cdef object _s_response  # what ``shape`` found: response id, choice number, entry index, call id,
    cdef object _s_number    # name and arguments
    cdef object _s_index
    cdef object _s_call
    cdef object _s_name
    cdef object _s_arguments

    cdef object read(self, object item, object text)
    cdef object choice_delta(self, object item)
    cdef bint shape(self, object item) except -1
    cdef object on_call(self, object response_id, object number, object index, object call_id, object name,
                        object arguments)
    cdef object resolve(self, object number, object index, object call_id, object name)


cdef class WholeCallFast(FastTest):
    cdef public object _text  # ``WholeCallAdapter``'s state: the open text run, ``(index, Message | Reasoning)``,
    cdef public object _next_index  # the next event index, the calls numbered so far, whether the response
    cdef public object _calls  # made calls
    cdef public object _response_calls

    cdef tuple take_calls(self, list found, object prefix)
    cdef object text_run(self, bint reasoning)


cdef class GeminiFast(WholeCallFast):
    cdef public object _call
    cdef public object _response_id
    cdef public bint _finished
    cdef public object _sink

    cdef object _s_value  # what ``shape`` found: the piece's value and path
    cdef object _s_path

    cdef object read(self, object item, object text)
    cdef bint shape(self, dict item) except -1
    cdef object text_hit(self, bint reasoning, object response_id, object text)


cdef class OllamaFast(WholeCallFast):
    cdef public object _created
    cdef public bint _empty
    cdef public object _held

    cdef object done_line(self, dict item)


cdef class LangChainFast(FastTest):
    cdef public bint _finished
    cdef public bint _finish_on_last
    cdef public dict _calls
    cdef public dict _current
    cdef public object _slots
    cdef public object _last_call


cdef class PydanticAIFast(FastTest):
    cdef public dict _parts
    cdef public object _slots


cdef class AgentsFast(FastTest):
    cdef public object _responses
