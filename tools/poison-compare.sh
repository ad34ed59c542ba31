#!/usr/bin/env bash
# poison-compare.sh NORMAL POISON: converts every bundled sample and the
# seed transcripts (../shared/corpus-seed, when it is there) with the
# normal build and the convertpoison build (every line overwritten once
# converted, every read buffer when released), with and without
# --reveal names, and fails unless both builds exit alike and write
# byte-identical outputs. A converter that keeps a view of a line past it
# writes different bytes under poison (or fails the alias check).
set -euo pipefail
normal=$1 poison=$2
seeds=../shared/corpus-seed
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=(samples)
if [ -d "$seeds" ]; then
  inputs+=("$seeds")
elif [ -n "${CI:-}" ]; then
  echo "poison-compare: $seeds is missing (CI needs it)" >&2
  exit 1
else
  echo "poison-compare: skipping the seed transcripts: $seeds is not beside this checkout"
fi
status=0
for in in "${inputs[@]}"; do
  for reveal in "" "--reveal names"; do
    tag=$(basename "$in")${reveal:+-reveal}
    set +e
    # shellcheck disable=SC2086
    "$normal" run -q --jobs 2 $reveal --out "$work/normal-$tag" "$in" >/dev/null 2>"$work/normal-$tag.err"; a=$?
    # shellcheck disable=SC2086
    "$poison" run -q --jobs 2 $reveal --out "$work/poison-$tag" "$in" >/dev/null 2>"$work/poison-$tag.err"; b=$?
    set -e
    if [ "$a" != "$b" ]; then
      echo "poison-compare: $in ${reveal:-(default)}: exit $a normal, $b poison" >&2
      sed 's/^/  poison: /' "$work/poison-$tag.err" | head -20 >&2
      status=1
    fi
    if ! diff -r -x .convert-manifest.json "$work/normal-$tag" "$work/poison-$tag" >"$work/diff" 2>&1; then
      echo "poison-compare: $in ${reveal:-(default)}: outputs differ" >&2
      head -20 "$work/diff" >&2
      status=1
    fi
    n=$(find "$work/normal-$tag" -name '*.receipt.ndjson' | wc -l)
    echo "poison-compare: $in ${reveal:-(default)}: $n receipts identical, exit $a"
  done
done
exit $status
