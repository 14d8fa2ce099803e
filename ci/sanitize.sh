#!/usr/bin/env bash
# The compiled core built with AddressSanitizer and UndefinedBehaviorSanitizer (gcc), in a fresh venv,
# then the core tests and the fuzz smoke run with libasan preloaded (issue 18). Any ASan report or
# UBSan finding fails the run (halt_on_error); Python's own leaks are by design, so leak detection
# is off. Linux with gcc; PYTHON picks the interpreter, SANITIZE_VENV the venv (default: a new one in
# a temporary directory), SANITIZE_TESTS the test files (default: the core ones below).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
python="${PYTHON:-python3}"
scratch="$(mktemp -d)"
venv="${SANITIZE_VENV:-$scratch/asan-venv}"
work=""
trap 'rm -rf "$scratch" ${work:+"$work"}' EXIT
tests="${SANITIZE_TESTS:-tests/test_conformance.py tests/test_chunking.py tests/test_errors.py tests/test_differential.py
  tests/test_properties.py tests/test_offsets.py tests/test_fragments.py tests/test_core_defects.py
  tests/test_core_fastpath.py tests/test_piece_skip.py tests/test_spans.py tests/test_memory.py
  tests/test_duplicate_keys.py tests/test_aggregate.py tests/test_raw_input.py tests/test_textcalls.py
  tests/test_provider_wire.py tests/test_fuzz_targets.py tests/test_astream.py}"
start=$SECONDS

libasan="$(gcc -print-file-name=libasan.so)"
if [ ! -e "$libasan" ]; then
  echo "sanitize: gcc has no libasan.so ($libasan); install gcc's sanitizer runtime" >&2
  exit 2
fi

echo "== venv $venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "setuptools>=77" "Cython>=3.1,<4" pytest pytest-asyncio "hypothesis>=6.100"

# A copy of the tree (outside the checkout, so that the build writes nothing into it), beside ../shared
# as the checkout is: the tests and the fuzz seeds find ../shared relative to their own parent.
work="$(mktemp -d "$root/../.sanitize.XXXXXX")"
mkdir "$work/build"
cp -r "$root/src" "$root/setup.py" "$root/pyproject.toml" "$root/README.md" "$root/LICENSE" "$root/MANIFEST.in" "$work/build/"
find "$work/build/src" \( -name "*.so" -o -name "*.c" -o -name "__pycache__" \) -prune -exec rm -rf {} +
cp -r "$root/tests" "$root/fuzz" "$root/pyproject.toml" "$work/"

echo "== build with -fsanitize=address,undefined"
# Debug information kept (ARGSTREAM_DEBUG_BUILD) so that reports name the .pyx line; no build
# isolation, so the flags reach the compiler that builds this tree and nothing is cached.
CC="${CC:-gcc}" \
CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -O1 -g" \
LDFLAGS="-fsanitize=address,undefined" \
ARGSTREAM_DEBUG_BUILD=1 ARGSTREAM_REQUIRE_EXTENSION=1 \
  "$venv/bin/python" -m pip install -q --no-build-isolation --no-cache-dir "$work/build"

echo "== every compiled module is instrumented"
site="$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")"
for so in "$site"/argstream/*.so; do
  deps="$(ldd "$so")"  # whole, not piped into grep -q: pipefail would count ldd's SIGPIPE as a failure
  if [[ "$deps" != *libasan* || "$deps" != *libubsan* ]]; then
    echo "sanitize: $so is not instrumented (CFLAGS did not reach the compiler)" >&2
    exit 1
  fi
done

export LD_PRELOAD="$libasan"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_init_order=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export PYTHONMALLOC=malloc  # every Python object through ASan's allocator, not pymalloc's arenas
export ARGSTREAM_REQUIRE_EXTENSION=1 CI=true

echo "== the compiled core is in use, under ASan"
(cd "$work" && "$venv/bin/python" -c "import argstream, sys; assert argstream.BACKEND == 'cython', argstream.BACKEND; print(argstream.__file__)")

echo "== core tests"
# shellcheck disable=SC2086
(cd "$work" && "$venv/bin/python" -m pytest -q -x -p no:cacheprovider -m "not sdk" $tests)

echo "== fuzz smoke run"
(cd "$work" && FUZZ_PYTHON="$venv/bin/python" FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash "$root/ci/fuzz_smoke.sh")

echo "sanitize: passed in $((SECONDS - start)) s"
