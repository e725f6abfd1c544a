#!/usr/bin/env bash
# Build the Kueue v0.19.2 and JobSet v0.12.0 controllers from the Go module proxy into
# ~/.cache/gke-accel/kueue/ (outside the repository) and print the binary paths.
# A lock file in that directory makes a second caller wait and reuse the binaries.
# Usage: tools/kueue/build.sh [kueue|jobset|all]   (default: all)
set -euo pipefail
KUEUE_VERSION=v0.19.2
JOBSET_VERSION=v0.12.0
CACHE="${GKE_ACCEL_CACHE:-$HOME/.cache/gke-accel}/kueue"
mkdir -p "$CACHE"
what="${1:-all}"
# shellcheck source=../lib/lock.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/lock.sh"

build() { # name module version package
  local name=$1 module=$2 version=$3 pkg=$4
  local bin="$CACHE/$name-$version"
  (
    lock_acquire 9 "$CACHE/build-$name.lock" "kueue/build.sh"
    if [ ! -x "$bin" ]; then
      lock_note "$CACHE/build-$name.lock" "building $name $version (go build, about 5-15 min)"
      echo "kueue/build.sh: building $name $version from the Go module proxy (about 5-15 min on 2 cores)" >&2
      local src="$CACHE/src-$name-$version"
      rm -rf "$src" && mkdir -p "$src"
      cat > "$src/go.mod" <<MOD
module gke-accel.local/$name-wrapper

go 1.25

require $module $version
MOD
      cat > "$src/tools.go" <<GO
//go:build tools

package tools

import _ "$pkg"
GO
      (cd "$src" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true
       cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin.tmp" "$pkg")
      mv "$bin.tmp" "$bin"
    fi
  ) 9>"$CACHE/build-$name.lock"
  echo "$bin"
}

case "$what" in
  kueue) build kueue sigs.k8s.io/kueue "$KUEUE_VERSION" sigs.k8s.io/kueue/cmd/kueue ;;
  jobset) build jobset sigs.k8s.io/jobset "$JOBSET_VERSION" sigs.k8s.io/jobset ;;
  all)
    build kueue sigs.k8s.io/kueue "$KUEUE_VERSION" sigs.k8s.io/kueue/cmd/kueue
    build jobset sigs.k8s.io/jobset "$JOBSET_VERSION" sigs.k8s.io/jobset ;;
  *) echo "usage: $0 [kueue|jobset|all]" >&2; exit 2 ;;
esac
