#!/usr/bin/env bash
# e2e_builds.sh - build (or reuse from ~/.cache/gke-accel) everything the e2e tier runs, one visible
# step at a time: the Kubernetes components, the terraform command, the kubernetes and helm providers,
# GKE's discovery documents and the google provider (tests/google_api), the Kueue and JobSet
# controllers and the helm CLI. Each step streams its output and ends with one line:
#   e2e build: <step> ok (<seconds> s)        or        e2e build: <step> FAILED (exit N): <command>
# The first failed step ends the script with its exit code (make e2e stops there).
# Without Go (or when the proxy refuses a module, exit 3 of a step): on a developer's machine the step
# is reported SKIP and the tests skip with the reason; in CI (CI=true or GKE_ACCEL_E2E_REQUIRED=1)
# it is a failure.
#
#   tools/ci/e2e_builds.sh VENV
set -uo pipefail
VENV="${1:?usage: $0 VENV}"
cd "$(dirname "$0")/../.."
export PATH="$PATH:${GO_BIN_DIR:-/usr/local/go/bin}"  # where the Go toolchain is installed, if not on PATH

required() { [[ "${CI:-}" == true || "${CI:-}" == 1 || "${GKE_ACCEL_E2E_REQUIRED:-}" == 1 ]]; }

if ! command -v go >/dev/null; then
  if required; then
    echo "e2e build: FAILED: no Go toolchain on PATH (required in CI: every e2e binary is built from the Go module proxy)" >&2
    exit 1
  fi
  echo "e2e build: SKIP: no Go toolchain on PATH; the e2e tests skip with the reason"
  exit 0
fi

step() {  # step NAME command... : run, stream the output, one summary line; exit on failure
  local name=$1; shift
  local t0=$SECONDS rc=0
  echo "e2e build: $name: $*"
  "$@" || rc=$?
  if [[ $rc == 0 ]]; then
    echo "e2e build: $name ok ($((SECONDS - t0)) s)"
  elif [[ $rc == 3 ]] && ! required; then
    echo "e2e build: $name SKIP (exit 3, see above); the tests that need it skip with the reason"
  else
    echo "e2e build: $name FAILED (exit $rc) after $((SECONDS - t0)) s: $*" >&2
    exit "$rc"
  fi
}

step kubernetes tools/k8s/build.sh
step terraform-command tools/terraform/install_terraform_shim.sh "$VENV"
step kubernetes-provider env KUBERNETES_VERSION=3.2.1 KUBERNETES_MODULE_VERSION=v1.13.4-0.20260821094251-3a33fb6cc605 \
  tools/terraform/build_providers.sh --only kubernetes
step helm-provider env HELM_PROVIDER_VERSION=3.2.0 HELM_PROVIDER_MODULE_VERSION=v1.3.3-0.20260629194918-a4f1c1d8b008 \
  tools/terraform/build_providers.sh --only helm
# tests/google_api: GKE's discovery documents and the google provider's schema (the terraform tier
# validates with the same build, so CI builds it once)
step google-api tools/google_api/discovery.sh
step google-provider tools/terraform/build_providers.sh --only google
step kueue tools/kueue/build.sh kueue
step jobset tools/kueue/build.sh jobset
step helm tools/helm/build.sh
