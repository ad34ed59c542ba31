#!/usr/bin/env bash
# jsonschema-diff.sh [-update]: downloads github.com/santhosh-tekuri/
# jsonschema/v5 v5.3.1 through the Go module proxy (its checksum checked
# against the one below), prints its diff with internal/jsonschema (the
# patches internal/jsonschema/PATCHES.md lists, the import-path changes, the
# files added or left out), and fails unless that diff is byte for byte
# internal/jsonschema/upstream.patch, the diff the project reviewed. After a
# deliberate change to the copy, -update rewrites upstream.patch; review it.
set -euo pipefail
mod=github.com/santhosh-tekuri/jsonschema/v5
ver=v5.3.1
sum='h1:lZUw3E0/J3roVtGQ+SCrUrg3ON6NgVqpn3+iol9aGu4='
go=${GO:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
copy=$root/internal/jsonschema
expected=$copy/upstream.patch

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Outside this module, so its go.mod and go.sum are left alone.
json=$(cd "$work" && "$go" mod download -json "$mod@$ver") || {
  printf '%s\n' "$json" >&2
  echo "jsonschema-diff: go mod download $mod@$ver failed" >&2
  exit 2
}
field() { printf '%s\n' "$json" | sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}$/\1/p"; }
dir=$(field Dir)
got=$(field Sum)
if [ "$got" != "$sum" ]; then
  echo "jsonschema-diff: $mod@$ver has checksum '$got', want $sum" >&2
  exit 2
fi

# Both trees under short names, so the diff's headers name no machine's paths.
cp -R "$dir" "$work/upstream"
chmod -R u+w "$work/upstream" # the module cache is read-only; rm -rf needs this
mkdir -p "$work/internal"
cp -R "$copy" "$work/internal/jsonschema"
rc=0
(cd "$work" && LC_ALL=C diff -ru -x JSON-Schema-Test-Suite upstream internal/jsonschema) >"$work/raw" || rc=$?
if [ "$rc" -gt 1 ]; then
  echo "jsonschema-diff: diff failed" >&2
  exit 2
fi
# Drop the file times from the --- and +++ lines.
tab=$(printf '\t')
sed "s/^\(--- [^$tab]*\)$tab.*/\1/; s/^\(+++ [^$tab]*\)$tab.*/\1/" "$work/raw" >"$work/live.patch"
cat "$work/live.patch"

if [ "${1:-}" = -update ]; then
  cp "$work/live.patch" "$expected"
  echo "jsonschema-diff: wrote internal/jsonschema/upstream.patch; review it with git diff" >&2
  exit 0
fi
if ! cmp -s "$work/live.patch" "$expected"; then
  echo "jsonschema-diff: the diff above is not internal/jsonschema/upstream.patch; how they differ:" >&2
  diff -u "$expected" "$work/live.patch" | sed 's/^/  /' >&2 || true
  echo "jsonschema-diff: list a deliberate change in internal/jsonschema/PATCHES.md, mark it [convert patch], then make jsonschema-diff JSONSCHEMA_DIFF_UPDATE=1" >&2
  exit 1
fi
echo "jsonschema-diff: as expected (internal/jsonschema/upstream.patch)" >&2
