#!/bin/sh
# Prints ccusage's per-session token figures for the bundled native samples
# (Claude Code, Codex, Gemini CLI, Copilot CLI, pi, OpenClaw, OpenCode and Factory Droid),
# as recorded in converters/testdata/ccusage.json (compared by
# each reader's TestCcusage, convtest.Ccusage). Usage: tools/ccusage-figures.sh CCUSAGE
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
# The cross-session history of TestFoldKeyLikeCcusage (cmd/convert): two
# Claude Code sessions that repeat responses with and without request ids.
# ccusage folds across files on (message id, request id); the totals line
# is what run --json and report --format json must print.
mkdir -p "$tmp/fold/home"
echo "claude cmd/convert/testdata/fold_history"
HOME="$tmp/fold/home" CLAUDE_CONFIG_DIR="$root/cmd/convert/testdata/fold_history" "$ccusage" session --json --offline |
	jq -c '(.session[] | {session: .period, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}), {totals: {input: .totals.inputTokens, output: .totals.outputTokens, cache_read: .totals.cacheReadTokens, cache_write: .totals.cacheCreationTokens}}'
for s in "$root"/samples/codex/*/; do
	name=$(basename "$s")
	[ -d "$s/sessions" ] || continue
	mkdir -p "$tmp/cx-$name/home" "$tmp/cx-$name/codex"
	cp -R "$s/sessions" "$tmp/cx-$name/codex/sessions"
	echo "codex samples/codex/$name"
	HOME="$tmp/cx-$name/home" CODEX_HOME="$tmp/cx-$name/codex" "$ccusage" codex session --json --offline |
		jq -c '.sessions[] | {session: .sessionFile, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
for s in "$root"/samples/gemini_cli/*/; do
	name=$(basename "$s")
	[ -d "$s/tmp" ] || continue
	mkdir -p "$tmp/gm-$name/home/.gemini"
	cp -R "$s/tmp" "$tmp/gm-$name/home/.gemini/tmp"
	echo "gemini samples/gemini_cli/$name"
	HOME="$tmp/gm-$name/home" "$ccusage" gemini session --json --offline |
		jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
# Copilot CLI: each sample folder's session-state, and each single-file
# sample as a session folder of its own (session-state/<name>/events.jsonl).
for s in "$root"/samples/copilot_cli/*; do
	name=$(basename "$s" .jsonl)
	case $name in bad_*) continue ;; esac
	mkdir -p "$tmp/cp-$name/home/.copilot/session-state"
	if [ -d "$s/session-state" ]; then
		cp -R "$s/session-state/." "$tmp/cp-$name/home/.copilot/session-state/"
	elif [ -f "$s" ]; then
		mkdir -p "$tmp/cp-$name/home/.copilot/session-state/$name"
		cp "$s" "$tmp/cp-$name/home/.copilot/session-state/$name/events.jsonl"
	else
		continue
	fi
	echo "copilot samples/copilot_cli/$name (sessions ccusage reads; one without a shutdown is not listed)"
	HOME="$tmp/cp-$name/home" "$ccusage" copilot session --json --offline |
		jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
# pi coding agent and OpenClaw (one reader, pi_agent): a sample folder with
# sessions/ is pi's agent folder, one with agents/ OpenClaw's state folder.
for s in "$root"/samples/pi_agent/*/; do
	name=$(basename "$s")
	mkdir -p "$tmp/pi-$name/home"
	if [ -d "$s/sessions" ]; then
		echo "pi samples/pi_agent/$name"
		HOME="$tmp/pi-$name/home" PI_AGENT_DIR="$s/sessions" "$ccusage" pi session --json --offline |
			jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
	fi
	if [ -d "$s/agents" ]; then
		echo "openclaw samples/pi_agent/$name"
		HOME="$tmp/pi-$name/home" OPENCLAW_DIR="$s" "$ccusage" openclaw session --json --offline |
			jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
	fi
done
for s in "$root"/samples/pi_agent/*.jsonl; do
	name=$(basename "$s" .jsonl)
	mkdir -p "$tmp/pif-$name/home" "$tmp/pif-$name/sessions/--sample--"
	cp "$s" "$tmp/pif-$name/sessions/--sample--/"
	echo "pi samples/pi_agent/$name.jsonl"
	HOME="$tmp/pif-$name/home" PI_AGENT_DIR="$tmp/pif-$name/sessions" "$ccusage" pi session --json --offline |
		jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
# OpenCode: ccusage reads the storage/ tree's message files (and
# opencode.db). A storage sample is copied as it is; an export sample's
# documents are laid out as storage/message/<session id>/<message id>.json,
# as OpenCode wrote them before it exported them.
for s in "$root"/samples/opencode/*/; do
	name=$(basename "$s")
	mkdir -p "$tmp/oc-$name/home" "$tmp/oc-$name/data/storage"
	if [ -d "$s/session" ]; then
		cp -R "$s/." "$tmp/oc-$name/data/storage/"
	else
		for doc in "$s"*.json; do
			jq -c '.messages[].info' "$doc" | while IFS= read -r m; do
				sid=$(printf '%s' "$m" | jq -r .sessionID)
				id=$(printf '%s' "$m" | jq -r .id)
				mkdir -p "$tmp/oc-$name/data/storage/message/$sid"
				printf '%s\n' "$m" >"$tmp/oc-$name/data/storage/message/$sid/$id.json"
			done
		done
	fi
	echo "opencode samples/opencode/$name"
	HOME="$tmp/oc-$name/home" OPENCODE_DATA_DIR="$tmp/oc-$name/data" "$ccusage" opencode session --json --offline |
		jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
# OpenCode 1.2+: opencode.db in the data directory. The repository commits
# no binary input, so the database is made from the storage sample with
# OpenCode's schema (internal/testshared/ocdb, as the tests make it); its
# sessions' figures must be the storage sample's.
mkdir -p "$tmp/ocdb/home" "$tmp/ocdb/data"
(cd "$root" && "${GO:-go}" run ./internal/testshared/ocdb/gen "$tmp/ocdb/data/opencode.db")
echo "opencode opencode.db made from samples/opencode/storage"
HOME="$tmp/ocdb/home" OPENCODE_DATA_DIR="$tmp/ocdb/data" "$ccusage" opencode session --json --offline |
	jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
# Factory Droid: ccusage reads only the .settings.json beside each session
# file; a sample folder with sessions/ is Droid's sessions folder, a loose
# .jsonl a session without one (ccusage reports none).
for s in "$root"/samples/droid/*/; do
	name=$(basename "$s")
	[ -d "$s/sessions" ] || continue
	mkdir -p "$tmp/dr-$name/home"
	echo "droid samples/droid/$name"
	HOME="$tmp/dr-$name/home" DROID_SESSIONS_DIR="$s/sessions" "$ccusage" droid session --json --offline |
		jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
for s in "$root"/samples/droid/*.jsonl; do
	name=$(basename "$s" .jsonl)
	mkdir -p "$tmp/drf-$name/home" "$tmp/drf-$name/sessions/-sample"
	cp "$s" "$tmp/drf-$name/sessions/-sample/"
	echo "droid samples/droid/$name.jsonl"
	HOME="$tmp/drf-$name/home" DROID_SESSIONS_DIR="$tmp/drf-$name/sessions" "$ccusage" droid session --json --offline |
		jq -c '.sessions[] | {session: .sessionId, input: .inputTokens, output: .outputTokens, cache_read: .cacheReadTokens, cache_write: .cacheCreationTokens}'
done
