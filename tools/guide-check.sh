#!/usr/bin/env bash
# guide-check follows docs/adding-a-format.md ("Adding an agent's log
# format") step by step in a scratch copy of the checkout, with the example
# reader of converters/testdata/guide, then holds the result to what the
# guide promises: the conformance, golden, schema, vocabulary, docs and
# layering tests pass, the reader converts its sample, the output validates
# and no canary of the sample reaches it. It prints the files the steps
# touched. A step of the guide that no longer works fails here.
#
#   tools/guide-check.sh        (make test-guide; CI runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
src=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The tracked files as they stand, as a clone would hold them.
git ls-files -z | tar --null -cf - -T - | tar -C "$tmp" -xf -
cd "$tmp"
git init -q && git add -A && git -c user.name=guide -c user.email=guide@localhost commit -qm base

guide=converters/testdata/guide
# Steps 1-4: one package, converters/<agent>, registering a Converter with
# a Format, with its tests (golden_test.go: convtest); one line in
# converters/all/imports.go.
mkdir -p converters/example
cp "$guide"/example/*.go converters/example/
sed -i 's|^\t_ "github.com/contextreceipts/convert/converters/cursor"$|&\n\t_ "github.com/contextreceipts/convert/converters/example"|' converters/all/imports.go
grep -q converters/example converters/all/imports.go
# Step 5: samples in samples/<name>/, make generate (which copies the
# note of the reader's doc.go into docs/converters.md), make golden.
mkdir -p samples/example_agent
cp "$guide"/samples/*.jsonl samples/example_agent/
make -s generate GO="$GO" >/dev/null || make generate GO="$GO"
make -s golden GO="$GO" >/dev/null

echo "== the files the guide's steps touched"
git add -A && git status --short | sed 's/^/  /'

echo "== the tests the guide names"
$GO vet ./converters/...
$GO run ./tools/borrowcheck converters
$GO test -count=1 ./converters -run 'TestConformance|TestGolden$|TestEveryReaderTestsItself|TestReadmeConverters|TestGuideNamesExist|TestShippedConverterWordsAreInTheTable|TestEventSchemasUpToDate'
$GO test -count=1 ./converters/example ./converters/all ./internal/gate/vocabgen ./internal/deps
targets=$($GO test -list 'Fuzz.*' ./converters/example)
grep -qx FuzzSamples <<<"$targets" || { echo "guide-check: the reader has no fuzz target (go test -list: $targets)"; exit 1; }

echo "== the reader at work"
make -s build GO="$GO"
bin/convert run --out out/example samples/example_agent/basic.jsonl
receipt=$(find out/example -name '*.receipt.ndjson')
bin/convert validate "$receipt" $(find out/example -name '*.otel.json*')
bin/convert leakcheck --input samples/example_agent/basic.jsonl "$receipt"
grep -q '"gen_ai.usage.input_tokens":1500' "$receipt" || { echo "guide-check: the receipt lacks the sample's 1500 input tokens"; exit 1; }
if grep -rl CANARY out/ golden/example_agent/; then echo "guide-check: a canary reached an output"; exit 1; fi
echo "guide-check: the guide's steps add a working reader"
