"""Fuzz targets for argstream (issue 18): each takes bytes and raises only on a defect.

A target decodes its bytes into choices (:class:`fuzz._data.Draw`) and checks a property; an
``AssertionError`` or any exception that is not the documented one is a defect. The same targets
run under atheris (coverage-guided, ``python -m fuzz TARGET``), under Hypothesis in the test suite
(tests/test_fuzz_targets.py) and as a replay of saved inputs. See docs/fuzzing.md.
"""

#: the targets' names (fuzz.targets maps them to the functions; kept here so that naming one imports nothing)
NAMES = ("parser", "lenient", "wire", "provider", "textcalls", "policy")
