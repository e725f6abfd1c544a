"""The test environment of the workload tools as a fixture."""

from __future__ import annotations

import pytest
from workload_cases import workload_env

from gke_accel.model import EnvironmentPlan


@pytest.fixture(scope="session")
def env() -> EnvironmentPlan:
    return workload_env()
