"""Which CDK framework gke-accel runs on: CDK Terrain (``cdktn``, the default) or cdktf 0.21.

Pure Python, no jsii: the seam files (``cdk/_framework.py``, ``cdk/_providers.py``,
``cdk/_kubernetes.py``) import the chosen framework's modules by the names given here, and
nothing else in the tree names a framework or provider package in an import.

Choice, made once per process at import time:

- ``GKE_ACCEL_FRAMEWORK=cdktn|cdktf`` selects one explicitly (it must be installed);
- otherwise the first installed of ``cdktn`` (a plain ``pip install gke-accel``) and ``cdktf``
  (``pip install gke-accel[cdktf]`` in an environment without cdktn).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass

ENV_VAR = "GKE_ACCEL_FRAMEWORK"


@dataclass(frozen=True, kw_only=True, slots=True)
class Framework:
    """One CDK framework and the prebuilt provider bindings gke-accel uses with it."""

    name: str
    core: str  # Python module of the framework (App, TerraformStack, ...)
    google: str  # Python package of the hashicorp/google bindings
    kubernetes: str  # Python package of the hashicorp/kubernetes bindings
    helm: str  # Python package of the hashicorp/helm bindings (Kueue, JobSet, queue objects)
    distributions: tuple[str, ...]  # the PyPI distributions, pinned in pyproject.toml
    google_provider: str  # the hashicorp/google version the bindings were generated from
    kubernetes_provider: str  # the hashicorp/kubernetes version the bindings were generated from
    helm_provider: str  # the hashicorp/helm version the bindings were generated from
    cli: str  # the npm package of its CLI (`make cli`), run as `npx <cli_command>`
    cli_command: str

    def installed(self) -> bool:
        return all(
            importlib.util.find_spec(m) is not None for m in (self.core, self.google, self.kubernetes, self.helm)
        )


CDKTN = Framework(
    name="cdktn",
    core="cdktn",
    google="cdktn_provider_google",
    kubernetes="cdktn_provider_kubernetes",
    helm="cdktn_provider_helm",
    distributions=("cdktn", "cdktn-provider-google", "cdktn-provider-kubernetes", "cdktn-provider-helm"),
    google_provider="8.7.0",
    kubernetes_provider="3.2.1",
    helm_provider="3.3.0",
    cli="cdktn-cli",
    cli_command="cdktn",
)
CDKTF = Framework(
    name="cdktf",
    core="cdktf",
    google="cdktf_cdktf_provider_google",
    kubernetes="cdktf_cdktf_provider_kubernetes",
    helm="cdktf_cdktf_provider_helm",
    distributions=(
        "cdktf",
        "cdktf-cdktf-provider-google",
        "cdktf-cdktf-provider-kubernetes",
        "cdktf-cdktf-provider-helm",
    ),
    google_provider="6.50.0",
    kubernetes_provider="2.38.0",
    helm_provider="3.1.1",
    cli="cdktf-cli",
    cli_command="cdktf",
)
FRAMEWORKS = {f.name: f for f in (CDKTN, CDKTF)}  # in order of preference
DEFAULT = CDKTN


class FrameworkError(RuntimeError):
    """No usable framework: names the setting, the bad value and what is valid."""


def choose(environ: dict[str, str] | None = None) -> Framework:
    """The framework this process uses (see the module docstring)."""
    env = os.environ if environ is None else environ
    wanted = env.get(ENV_VAR, "").strip()
    if wanted:
        framework = FRAMEWORKS.get(wanted)
        if framework is None:
            raise FrameworkError(f"{ENV_VAR}: {wanted!r} is not a framework; valid: {', '.join(FRAMEWORKS)}")
        if not framework.installed():
            hint = "pip install gke-accel" if framework is DEFAULT else f"pip install 'gke-accel[{framework.name}]'"
            raise FrameworkError(f"{ENV_VAR}: {wanted!r} is not installed; install it with `{hint}`")
        return framework
    for framework in FRAMEWORKS.values():
        if framework.installed():
            return framework
    raise FrameworkError(
        f"no CDK framework installed; install {DEFAULT.name} with `pip install gke-accel` "
        f"or cdktf with `pip install 'gke-accel[cdktf]'`"
    )
