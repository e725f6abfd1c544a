#!/usr/bin/env bash
# terraformrc.sh - write the Terraform CLI config for this project and print its path.
#
#   export TF_CLI_CONFIG_FILE="$(tools/terraform/terraformrc.sh)"
#
# The hashicorp providers build_providers.sh has put in the mirror (google, kubernetes, helm) are
# installed ONLY from the mirror (offline; the mirror's versions must satisfy the stack's version pins)
# and everything else comes from the registry. With google and kubernetes not both built, the file just
# sets a shared plugin cache and Terraform installs from the registry as usual.
set -euo pipefail
CACHE="${GKE_ACCEL_CACHE:-$HOME/.cache/gke-accel}"
MIRROR="$CACHE/terraform-mirror"
RC="$CACHE/terraformrc"
PLUGIN_CACHE="$CACHE/terraform-plugin-cache"
mkdir -p "$CACHE" "$PLUGIN_CACHE"

have() {  # any executable build of provider $1 for this platform in the mirror?
  local f
  for f in "$MIRROR"/registry.terraform.io/hashicorp/"$1"/*/linux_amd64/terraform-provider-"$1"_v*; do
    [[ -x "$f" ]] && return 0
  done
  return 1
}

{
  echo "# written by tools/terraform/terraformrc.sh"
  echo "plugin_cache_dir = \"$PLUGIN_CACHE\""
  if have google && have kubernetes; then
    built='"registry.terraform.io/hashicorp/google", "registry.terraform.io/hashicorp/kubernetes"'
    if have helm; then built+=', "registry.terraform.io/hashicorp/helm"'; fi
    cat <<HCL
provider_installation {
  filesystem_mirror {
    path    = "$MIRROR"
    include = [$built]
  }
  direct {
    exclude = [$built]
  }
}
HCL
  fi
} >"$RC.tmp.$$"
mv -f "$RC.tmp.$$" "$RC"
echo "$RC"
