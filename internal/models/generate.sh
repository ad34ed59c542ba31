#!/bin/sh
# generate.sh rewrites catalog.json from pydantic's genai-prices data, as
# the npm package of the pinned version below ships it (npm pack from the
# npm registry, checked against the registry's integrity hash), trimmed by
# trim.mjs to what convert uses. To move to a newer version, change both
# lines (npm view @pydantic/genai-prices@VERSION dist.integrity) and
# review the diff of catalog.json.
set -eu
PKG=@pydantic/genai-prices
VERSION=0.1.8
INTEGRITY=sha512-h7CYw6qTyflG2zUndO8tXyL8Xopf+tX9JZu13h0ZFgeyYj+J2gm1edR4+R+mbQ2vPdkFjtTmmmu1cYQPM5/KTA==

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && npm pack --silent "$PKG@$VERSION" >/dev/null)
tgz=$(ls "$dir"/*.tgz)
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 | tr -d '\n')"
if [ "$got" != "$INTEGRITY" ]; then
	echo "generate.sh: $PKG@$VERSION: integrity $got, want $INTEGRITY" >&2
	exit 1
fi
tar -xzf "$tgz" -C "$dir"
node trim.mjs "$dir/package" catalog.json
