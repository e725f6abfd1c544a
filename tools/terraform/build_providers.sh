#!/usr/bin/env bash
# build_providers.sh - build the hashicorp/google, hashicorp/kubernetes and hashicorp/helm
# Terraform providers from source (Go module proxy) into a Terraform
# filesystem mirror, so `terraform init` works without registry access.
#
#   tools/terraform/build_providers.sh            # build missing providers
#   tools/terraform/build_providers.sh --force    # rebuild all three
#   tools/terraform/build_providers.sh --only kubernetes   # just one (e.g. for the e2e tier: kubernetes, helm)
#
# Layout: $MIRROR/registry.terraform.io/hashicorp/<name>/<ver>/linux_amd64/
#         terraform-provider-<name>_v<ver>
# Env:
#   GKE_ACCEL_CACHE   cache root (default ~/.cache/gke-accel); mirror = $GKE_ACCEL_CACHE/terraform-mirror
#   GOOGLE_VERSION / KUBERNETES_VERSION / HELM_PROVIDER_VERSION   Terraform version label
#     (default 8.0.0 / 3.2.1 / 3.2.0; HELM_VERSION is the helm CLI's, tools/helm/build.sh)
#   GOOGLE_MODULE_VERSION / KUBERNETES_MODULE_VERSION / HELM_PROVIDER_MODULE_VERSION   Go module version
#     to fetch (default: the served pseudo-versions below for the default labels, else v<label>).
#     The providers' go.mod lacks a /vN suffix, so release tags >= v2 are not valid Go
#     module versions; pass the pseudo-version of the release commit instead, e.g.
#     v1.20.1-0.<yyyymmddhhmmss>-<commit12> (google) / v1.13.4-0.<...>-<commit12> (kubernetes).
#     The proxy reachable here refuses v6.50.0 / v2.38.0; on 2026-11-29 it served only:
#       GOOGLE_VERSION=8.0.0 GOOGLE_MODULE_VERSION=v1.20.1-0.20260828184646-f3721fb45fa3
#       KUBERNETES_VERSION=3.2.1 KUBERNETES_MODULE_VERSION=v1.13.4-0.20260821094251-3a33fb6cc605
#     and for helm (github.com/hashicorp/terraform-provider-helm; no /v2 or /v3 module: 404) on
#     2026-12-04 only v1.3.2 (the 2020 tag) and one pseudo-version:
#       HELM_PROVIDER_VERSION=3.2.0 HELM_PROVIDER_MODULE_VERSION=v1.3.3-0.20260629194918-a4f1c1d8b008
#     (main-branch commits just after those releases, labelled with their CHANGELOG version:
#     the helm commit's CHANGELOG.md tops at "3.2.0 (June 4, 2026)").
# Each build records the module it came from next to the binary (<binary>.source); a build whose
# recorded source differs from the requested one is rebuilt, so a label never names other code.
# One build at a time: a second caller waits on $CACHE/terraform-mirror.lock, then reuses the result.
# Exit 0 built or present, 3 SKIP (no Go toolchain, or the proxy refuses the module), 1 other errors.
# Afterwards run tools/terraform/terraformrc.sh to write the CLI config.
set -euo pipefail

FORCE=0; ONLY=
while [[ $# -gt 0 ]]; do
  case "$1" in --force) FORCE=1 ;; --only) ONLY="${2:?--only needs google, kubernetes or helm}"; shift ;; *) echo "unknown argument $1" >&2; exit 2 ;; esac
  shift
done
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "build_providers.sh: SKIP: Go toolchain not found" >&2; exit 3; }
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:--buildvcs=false}" GOMAXPROCS="${GOMAXPROCS:-2}"
CACHE="${GKE_ACCEL_CACHE:-$HOME/.cache/gke-accel}"
MIRROR="$CACHE/terraform-mirror"
mkdir -p "$CACHE"
exec 9>"$CACHE/terraform-mirror.lock"
flock 9  # held until exit: concurrent callers build each provider once
PLATFORM="$(go env GOOS)_$(go env GOARCH)"

# name | terraform version label | go module | module version | -X flag for the version (optional) | env var
GV="${GOOGLE_VERSION:-8.0.0}"; KV="${KUBERNETES_VERSION:-3.2.1}"; HV="${HELM_PROVIDER_VERSION:-3.2.0}"
GMV=v$GV; [[ $GV == 8.0.0 ]] && GMV=v1.20.1-0.20260828184646-f3721fb45fa3
KMV=v$KV; [[ $KV == 3.2.1 ]] && KMV=v1.13.4-0.20260821094251-3a33fb6cc605
HMV=v$HV; [[ $HV == 3.2.0 ]] && HMV=v1.3.3-0.20260629194918-a4f1c1d8b008
SPECS=(
  "google|$GV|github.com/hashicorp/terraform-provider-google|${GOOGLE_MODULE_VERSION:-$GMV}|github.com/hashicorp/terraform-provider-google/version.ProviderVersion=$GV|GOOGLE_MODULE_VERSION"
  "kubernetes|$KV|github.com/hashicorp/terraform-provider-kubernetes|${KUBERNETES_MODULE_VERSION:-$KMV}||KUBERNETES_MODULE_VERSION"
  "helm|$HV|github.com/hashicorp/terraform-provider-helm|${HELM_PROVIDER_MODULE_VERSION:-$HMV}|main.Version=$HV|HELM_PROVIDER_MODULE_VERSION"
)
# (kubernetes reports its version via a Go const in main.go, which -X cannot set; helm's is a var.)

# Build into $CACHE/tmp (outside the mirror, same filesystem) and mv: an
# interrupted build never leaves a half-written binary where Terraform looks.
TMP=; trap 'rm -f ${TMP:+"$TMP"}' EXIT; trap 'exit 130' INT TERM

bin_path() { echo "$MIRROR/registry.terraform.io/hashicorp/$1/$2/$PLATFORM/terraform-provider-$1_v$2"; }

build_one() {
  local name=$1 ver=$2 mod=$3 modver=$4 xflag=$5 envvar=$6
  local out; out="$(bin_path "$name" "$ver")"
  local recorded=; [[ -f "$out.source" ]] && recorded="$(<"$out.source")"
  if [[ $FORCE == 0 && -x "$out" ]]; then
    if [[ -z "$recorded" ]]; then echo "[$name $ver] present (source not recorded): $out"; return; fi
    if [[ "$recorded" == "$mod@$modver" ]]; then echo "[$name $ver] present ($recorded): $out"; return; fi
    echo "[$name $ver] present but built from $recorded, not $mod@$modver: rebuilding"
  fi
  local t0=$SECONDS json dir
  echo "[$name $ver] downloading $mod@$modver"
  json="$(cd "$CACHE" && go mod download -json "$mod@$modver" 2>&1)" || true  # outside any go.mod
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")"
  if [[ -z "$dir" ]]; then
    echo "[$name $ver] ERROR: Go module proxy did not serve $mod@$modver:" >&2
    sed -n 's/^[[:space:]]*"Error": "\(.*\)"$/  \1/p' <<<"$json" >&2
    echo "  Set $envvar to a served pseudo-version of the release commit" >&2
    echo "  (what the proxy holds: curl -s $(go env GOPROXY | cut -d, -f1)/$mod/@v/list)" >&2
    echo "[$name $ver] SKIP: the Go module proxy refuses $mod@$modver" >&2
    return 3
  fi
  local ldflags="-s -w"; [[ -n "$xflag" ]] && ldflags+=" -X $xflag"
  mkdir -p "$(dirname "$out")" "$CACHE/tmp"
  TMP="$CACHE/tmp/terraform-provider-${name}_v$ver.$$"
  echo "[$name $ver] building in $dir"
  # go build inside the module dir honours its go.mod (incl. replace directives).
  local timer=(); [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "[$name $ver] build: %e s wall, %U s user, peak RSS %M KB")
  "${timer[@]}" go build -C "$dir" -p "$GOMAXPROCS" -trimpath -ldflags "$ldflags" -o "$TMP" .
  chmod 0755 "$TMP" && mv -f "$TMP" "$out"; TMP=
  echo "$mod@$modver" >"$out.source"
  echo "[$name $ver] done in $((SECONDS - t0)) s: $out ($(du -h "$out" | cut -f1))"
}

[[ -z "$ONLY" || " google kubernetes helm " == *" $ONLY "* ]] || { echo "--only: unknown provider $ONLY (google, kubernetes, helm)" >&2; exit 2; }
for spec in "${SPECS[@]}"; do IFS='|' read -r n v m mv x e <<<"$spec"; [[ -z "$ONLY" || "$ONLY" == "$n" ]] || continue; build_one "$n" "$v" "$m" "$mv" "$x" "$e"; done
echo "mirror: $MIRROR"
