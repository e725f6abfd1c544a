#!/usr/bin/env bash
# discovery.sh - GKE's REST discovery documents (container v1 and v1beta1), as Google publishes them in
# the Go module google.golang.org/api (container/<version>/container-api.json), fetched once with
# `go mod download` and cached outside the repository; prints the cache folder:
#   ~/.cache/gke-accel/google-api/<module version>/container-v1.json, container-v1beta1.json, SOURCE
# SOURCE records the module, its version and the go.sum hash the proxy served.
# tests/google_api checks every value the stacks send to GKE against these documents (docs/deploy.md).
# A lock file makes a second caller wait and reuse the result.
#
#   tools/google_api/discovery.sh            # GOOGLE_API_VERSION (default below)
# Exit 0 present or fetched, 3 SKIP (no Go toolchain, or the proxy refuses the module), 1 other errors.
set -euo pipefail
VERSION="${GOOGLE_API_VERSION:-v0.316.0}"   # 2026-11-17; container v1 and v1beta1 revision 20261027
MODULE=google.golang.org/api
CACHE="${GKE_ACCEL_CACHE:-$HOME/.cache/gke-accel}/google-api"
OUT="$CACHE/$VERSION"
export PATH="$PATH:${GO_BIN_DIR:-/usr/local/go/bin}"
mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
flock 9
if [[ -f "$OUT/container-v1.json" && -f "$OUT/container-v1beta1.json" && -f "$OUT/SOURCE" ]]; then
  echo "$OUT"
  exit 0
fi
command -v go >/dev/null || { echo "discovery.sh: SKIP: Go toolchain not found" >&2; exit 3; }
# outside any module, so `go mod download` fetches just this one (into the shared Go module cache)
if ! info="$(cd "$CACHE" && GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION")"; then
  echo "discovery.sh: SKIP: the Go module proxy did not serve $MODULE@$VERSION" >&2
  echo "$info" >&2
  exit 3
fi
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$info" "$1"; }
dir="$(field Dir)"
tmp="$(mktemp -d "$CACHE/tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for v in v1 v1beta1; do
  cp "$dir/container/$v/container-api.json" "$tmp/container-$v.json"
done
echo "$MODULE@$VERSION $(field Sum)" >"$tmp/SOURCE"
rm -rf "$OUT"
mv "$tmp" "$OUT"
trap - EXIT
echo "$OUT"
