"""The one place that imports the CDK framework (cdktf and its `constructs` runtime).

Moving to the maintained fork (CDK Terrain: ``cdktn``) means changing the imports here and in
``_providers.py`` only.
"""

from cdktf import (
    App,
    Fn,
    GcsBackend,
    LocalBackend,
    TerraformOutput,
    TerraformResource,
    TerraformResourceLifecycle,
    TerraformStack,
    TerraformVariable,
    Testing,
)
from constructs import Construct

__all__ = [
    "App",
    "Construct",
    "Fn",
    "GcsBackend",
    "LocalBackend",
    "TerraformOutput",
    "TerraformResource",
    "TerraformResourceLifecycle",
    "TerraformStack",
    "TerraformVariable",
    "Testing",
]
