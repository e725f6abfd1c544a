#!/usr/bin/env bash
# build.sh - build the helm CLI (v3) from the Go module proxy into ~/.cache/gke-accel/helm/ (outside
# the repository) and print the binary's path. The e2e and unit tiers render the charts we install
# (Kueue, JobSet, the generated queue chart) with it: `helm template`, no cluster needed.
#
#   tools/helm/build.sh            # build if missing, else reuse; prints the path
# Exit 0 built or present; 3 SKIP: no Go toolchain, or the proxy does not serve the module; 1 other errors.
# One build at a time: $CACHE/helm/.lock (a second caller waits, then reuses). With GKE_ACCEL_HEAVY_LOCK
# set (shared dev machines) the Go build also holds that lock.
# Env: GKE_ACCEL_CACHE (~/.cache/gke-accel), HELM_VERSION (v3.21.4), GKE_ACCEL_HEAVY_LOCK (unset).
set -euo pipefail
HELM_VERSION="${HELM_VERSION:-v3.21.4}"
CACHE="${GKE_ACCEL_CACHE:-$HOME/.cache/gke-accel}/helm"
BIN="$CACHE/helm-$HELM_VERSION"
export PATH="$PATH:/usr/local/go/bin"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [[ -x "$BIN" ]]; then echo "$BIN"; exit 0; fi
command -v go >/dev/null || { echo "tools/helm/build.sh: SKIP: no Go toolchain on PATH" >&2; exit 3; }
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:--buildvcs=false}" GOMAXPROCS="${GOMAXPROCS:-2}" GOTOOLCHAIN=local
module=helm.sh/helm/v3
if ! (cd "$CACHE" && go mod download "$module@$HELM_VERSION") >&2; then
  echo "tools/helm/build.sh: SKIP: the Go module proxy does not serve $module@$HELM_VERSION" >&2
  exit 3
fi
SCRATCH="$(mktemp -d "$CACHE/scratch.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
timer=(); [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "[helm $HELM_VERSION] %e s wall, %U s user, peak RSS %M KB")
build=(env GOBIN="$SCRATCH" go install -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
  "$module/cmd/helm@$HELM_VERSION")
if [[ -n "${GKE_ACCEL_HEAVY_LOCK:-}" ]]; then flock "$GKE_ACCEL_HEAVY_LOCK" "${timer[@]}" "${build[@]}" >&2
else "${timer[@]}" "${build[@]}" >&2; fi
mv -f "$SCRATCH/helm" "$BIN"
echo "$BIN"
