#!/usr/bin/env bash
# A short, bounded fuzz run of every target (issue 18): the seed corpus built from ../shared (when it
# is there) replayed, then FUZZ_SECONDS (default 15) of new inputs per target, with atheris when it
# is installed and Hypothesis otherwise; then the targets with compiled fast paths on the pure twin. Failing inputs are kept in FUZZ_CRASHES (default
# fuzz-crashes/) and fail the run. Run from anywhere; FUZZ_PYTHON picks the interpreter.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# the fuzz package is taken from the current directory when it has one (ci/sanitize.sh runs a copy)
if [ -d fuzz ] && [ -f fuzz/targets.py ]; then root="$PWD"; else root="$here"; fi
python="${FUZZ_PYTHON:-python}"
seconds="${FUZZ_SECONDS:-15}"
crashes="${FUZZ_CRASHES:-$root/fuzz-crashes}"
engine="${FUZZ_ENGINE:-auto}"
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
cd "$root"
"$python" fuzz/make_corpus.py "$corpus"
status=0
for target in parser lenient wire provider textcalls policy; do
  if ! "$python" -m fuzz "$target" --time "$seconds" --engine "$engine" --corpus "$corpus/$target" \
      --crashes "$crashes/$target"; then
    echo "fuzz_smoke: $target FAILED (inputs in $crashes/$target)" >&2
    status=1
  fi
done
# the layers with a compiled fast path of their own (the wire decoder, the adapters' pipelines, the text
# scanner) once more on the pure twin, which ARGSTREAM_PURE selects at import
for target in wire provider textcalls; do
  if ! ARGSTREAM_PURE=1 ARGSTREAM_REQUIRE_EXTENSION=0 "$python" -m fuzz "$target" --time "$(( (seconds + 1) / 2 ))" \
      --engine "$engine" --corpus "$corpus/$target" --crashes "$crashes/pure-$target"; then
    echo "fuzz_smoke: $target (ARGSTREAM_PURE=1) FAILED (inputs in $crashes/pure-$target)" >&2
    status=1
  fi
done
exit "$status"
