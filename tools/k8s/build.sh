#!/usr/bin/env bash
# build.sh - build the Kubernetes components the e2e tier runs, from the Go module proxy.
#
#   tools/k8s/build.sh            # build what is missing, reuse what is cached
#   tools/k8s/build.sh --force    # rebuild everything
#   tools/k8s/build.sh --print-bin-dir
#
# Output: $GKE_ACCEL_CACHE/k8s/$K8S_VERSION/bin/{etcd,kube-apiserver,kube-controller-manager,
#         kube-scheduler,kubectl,kwok} and .../stages/*.yaml (kwok stage configs from its module).
# Exit codes: 0 built or reused; 1 build failed; 3 SKIP: no Go toolchain on this machine.
#
# How (facts in docs/e2e.md):
# - etcd v3.5.21: a wrapper module requiring go.etcd.io/etcd/server/v3 (its own go.mod has
#   `../api` style replaces, so `go install pkg@version` is refused).
# - kube-apiserver / -controller-manager / -scheduler / kubectl: a wrapper module requiring
#   k8s.io/kubernetes and replacing each of its `=> ./staging/src/...` modules (31 for 1.33)
#   with the published module at v0.<minor>.<patch>; the list is read from kubernetes' go.mod.
# - kwok: `go install sigs.k8s.io/kwok/cmd/kwok@version`.
# Builds run in a scratch dir under the cache (never in the repository), binaries are moved
# into place atomically, and the whole run holds $GKE_ACCEL_CACHE/k8s/.lock so a second
# caller waits and then reuses what the first built. With GKE_ACCEL_HEAVY_LOCK set (shared dev machines),
# each Go build also holds that lock file (do not set it when the caller already holds it: deadlock).
# Env: GKE_ACCEL_CACHE (~/.cache/gke-accel), K8S_VERSION (v1.33.13), ETCD_VERSION (v3.5.21),
#      KWOK_VERSION (v0.8.0), GKE_ACCEL_HEAVY_LOCK (unset; e.g. /tmp/gke-accel-heavy.lock).
set -euo pipefail

FORCE=0; PRINT=0
case "${1:-}" in --force) FORCE=1 ;; --print-bin-dir) PRINT=1 ;; "") ;; *) echo "usage: $0 [--force|--print-bin-dir]" >&2; exit 2 ;; esac

CACHE="${GKE_ACCEL_CACHE:-$HOME/.cache/gke-accel}"
K8S_VERSION="${K8S_VERSION:-v1.33.13}"
ETCD_VERSION="${ETCD_VERSION:-v3.5.21}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
ROOT="$CACHE/k8s/$K8S_VERSION"
BIN="$ROOT/bin"
if [[ $PRINT == 1 ]]; then echo "$BIN"; exit 0; fi

export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null; then
  echo "SKIP: build.sh needs a Go toolchain (go >= 1.24) to build kube-apiserver, etcd and kwok; none on PATH." >&2
  exit 3
fi
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:--buildvcs=false}" GOMAXPROCS="${GOMAXPROCS:-2}" GOTOOLCHAIN=local
HEAVY="${GKE_ACCEL_HEAVY_LOCK:-}"

mkdir -p "$CACHE/k8s" "$BIN" "$ROOT/stages"
# shellcheck source=../lib/lock.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/lock.sh"
LOCK="$CACHE/k8s/.lock"
exec 9>"$LOCK"
lock_acquire 9 "$LOCK" "build.sh"  # a waiter prints who holds it and what it builds, once a minute

SCRATCH="$(mktemp -d "$CACHE/k8s/scratch.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
trap 'exit 130' INT TERM
T_ALL=$SECONDS

timed() {  # timed LABEL cmd... : run under /usr/bin/time when available, holding the heavy lock
  local label=$1; shift
  lock_note "$LOCK" "$label"
  local timer=(); [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "[$label] %e s wall, %U s user, peak RSS %M KB")
  if [[ -n "$HEAVY" ]]; then flock "$HEAVY" "${timer[@]}" "$@"; else "${timer[@]}" "$@"; fi
}

have() { [[ $FORCE == 0 && -x "$BIN/$1" ]]; }

install_bin() {  # install_bin SRC NAME : atomic move into bin/
  chmod 0755 "$1"; mv -f "$1" "$BIN/.$2.tmp.$$"; mv -f "$BIN/.$2.tmp.$$" "$BIN/$2"
  echo "[$2] -> $BIN/$2 ($(du -h "$BIN/$2" | cut -f1))"
}

build_etcd() {
  if have etcd; then echo "[etcd] present"; return; fi
  local t0=$SECONDS d="$SCRATCH/etcd"
  mkdir -p "$d"
  printf 'module gkeaccel.local/etcdwrap\n\ngo 1.23\n' >"$d/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$d/tools.go"
  (cd "$d" && go mod edit -require="go.etcd.io/etcd/server/v3@$ETCD_VERSION" && go mod tidy)
  timed etcd go build -C "$d" -p "$GOMAXPROCS" -trimpath -ldflags "-s -w" -o "$d/etcd" go.etcd.io/etcd/server/v3
  install_bin "$d/etcd" etcd
  echo "[etcd] $ETCD_VERSION done in $((SECONDS - t0)) s"
}

build_kube() {
  local want=() c
  for c in kube-apiserver kube-controller-manager kube-scheduler kubectl; do have "$c" || want+=("$c"); done
  if [[ ${#want[@]} == 0 ]]; then echo "[kubernetes] present"; return; fi
  local t0=$SECONDS d="$SCRATCH/kube" staging="v0.${K8S_VERSION#v1.}" json gomod
  mkdir -p "$d"
  json="$(cd "$SCRATCH" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION")"
  gomod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")"
  [[ -f "$gomod" ]] || { echo "[kubernetes] ERROR: proxy did not serve k8s.io/kubernetes@$K8S_VERSION" >&2; echo "$json" >&2; return 1; }
  {
    printf 'module gkeaccel.local/kubewrap\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\n' "$K8S_VERSION"
    # every `k8s.io/x => ./staging/src/k8s.io/x` line becomes `k8s.io/x => k8s.io/x v0.33.13`
    sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/src/.*#replace \1 => \1 '"$staging"'#p' "$gomod"
  } >"$d/go.mod"
  echo "[kubernetes] wrapper module with $(grep -c '^replace' "$d/go.mod") staging replaces"
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for c in kube-apiserver kube-controller-manager kube-scheduler kubectl; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$c"; done
    printf ')\n'
  } >"$d/tools.go"
  (cd "$d" && go mod tidy)
  local minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  local pkg=k8s.io/component-base/version
  local ld="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  ld+=" -X $pkg.buildDate=1970-01-01T00:00:00Z"
  ld+=" -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  for c in "${want[@]}"; do
    timed "$c" go build -C "$d" -p "$GOMAXPROCS" -trimpath -ldflags "$ld" -o "$d/$c" "k8s.io/kubernetes/cmd/$c"
    install_bin "$d/$c" "$c"
  done
  echo "[kubernetes] $K8S_VERSION done in $((SECONDS - t0)) s"
}

build_kwok() {
  if have kwok && compgen -G "$ROOT/stages/*.yaml" >/dev/null; then echo "[kwok] present"; return; fi
  local t0=$SECONDS d="$SCRATCH/kwok" json dir
  mkdir -p "$d/bin"
  timed kwok env GOBIN="$d/bin" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  json="$(cd "$SCRATCH" && go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION")"
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")"
  # Stage configs: nodes become Ready and heartbeat, pods bound to a kwok node go Running.
  local s
  for s in node-fast:kustomize/stage/node/fast/node-initialize.yaml \
           node-heartbeat:kustomize/stage/node/heartbeat/node-heartbeat.yaml \
           pod-ready:kustomize/stage/pod/fast/pod-ready.yaml \
           pod-complete:kustomize/stage/pod/fast/pod-complete.yaml \
           pod-delete:kustomize/stage/pod/fast/pod-delete.yaml; do
    if [[ -f "$dir/${s#*:}" ]]; then cp "$dir/${s#*:}" "$ROOT/stages/${s%%:*}.yaml.tmp"; mv -f "$ROOT/stages/${s%%:*}.yaml.tmp" "$ROOT/stages/${s%%:*}.yaml"
    else echo "[kwok] WARNING: stage file ${s#*:} not in $dir" >&2; fi
  done
  chmod -R u+w "$ROOT/stages"
  install_bin "$d/bin/kwok" kwok
  echo "[kwok] $KWOK_VERSION done in $((SECONDS - t0)) s"
}

build_etcd
build_kube
build_kwok
echo "$K8S_VERSION binaries ready in $((SECONDS - T_ALL)) s: $BIN"
