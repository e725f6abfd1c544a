"""The one place that imports the CDK framework and its ``constructs`` runtime.

CDK Terrain (``cdktn``, the default) and cdktf 0.21 have the same construct API; which one loads is
decided by ``gke_accel.frameworks.choose()`` (``GKE_ACCEL_FRAMEWORK`` or the installed one). The type
checker sees the default's types. The rest of the tree imports these names from here only.
"""

from typing import TYPE_CHECKING

import gke_accel.cdk._jsii_child  # noqa: F401  (first: jsii's node child then ends with this process)

# isort: split

from constructs import Construct

from gke_accel.frameworks import CDKTN, choose

FRAMEWORK = choose()

if TYPE_CHECKING or FRAMEWORK is CDKTN:
    from cdktn import (
        App,
        AssetType,
        Fn,
        GcsBackend,
        LocalBackend,
        TerraformAsset,
        TerraformOutput,
        TerraformResource,
        TerraformResourceLifecycle,
        TerraformStack,
        TerraformVariable,
        Testing,
    )
else:
    from cdktf import (
        App,
        AssetType,
        Fn,
        GcsBackend,
        LocalBackend,
        TerraformAsset,
        TerraformOutput,
        TerraformResource,
        TerraformResourceLifecycle,
        TerraformStack,
        TerraformVariable,
        Testing,
    )

__all__ = [
    "FRAMEWORK",
    "App",
    "AssetType",
    "Construct",
    "Fn",
    "GcsBackend",
    "LocalBackend",
    "TerraformAsset",
    "TerraformOutput",
    "TerraformResource",
    "TerraformResourceLifecycle",
    "TerraformStack",
    "TerraformVariable",
    "Testing",
]
