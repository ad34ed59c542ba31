#!/bin/sh
# Prints ccusage's per-session token figures for the bundled native samples,
# as recorded in converters/testdata/ccusage.json (compared by
# TestTokenTotalsAgainstCcusage). Usage: tools/ccusage-figures.sh CCUSAGE
# where CCUSAGE is the ccusage executable (npm i ccusage; tested with 20.0.24).
# Each sample folder is read alone, in a throwaway HOME, offline.
set -eu
ccusage=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in "$root"/samples/claude_code/*/; do
	name=$(basename "$s")
	mkdir -p "$tmp/$name/home" "$tmp/$name/cfg"
	cp -R "$s" "$tmp/$name/cfg/projects"
	echo "claude samples/claude_code/$name"
	HOME="$tmp/$name/home" CLAUDE_CONFIG_DIR="$tmp/$name/cfg" "$ccusage" session --json --offline |
		jq -c '.session[] | {session: .period, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
for s in "$root"/samples/codex/*/; do
	name=$(basename "$s")
	[ -d "$s/sessions" ] || continue
	mkdir -p "$tmp/cx-$name/home" "$tmp/cx-$name/codex"
	cp -R "$s/sessions" "$tmp/cx-$name/codex/sessions"
	echo "codex samples/codex/$name"
	HOME="$tmp/cx-$name/home" CODEX_HOME="$tmp/cx-$name/codex" "$ccusage" codex session --json --offline |
		jq -c '.sessions[] | {session: .sessionFile, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
