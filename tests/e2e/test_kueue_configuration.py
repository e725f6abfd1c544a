"""The Kueue configuration staging installs keeps the one Kueue ships, except where we mean to differ.

The stack passes its own ``managerConfig.controllerManagerConfigYaml``, and Helm replaces the chart's
value with it whole: a setting of the chart's default that ours leaves out is silently gone. The
reference is the chart itself (charts/kueue/values.yaml of the pinned tag, from its Go module, as
tests/charts.py renders it), not our code; what we render is Helm's output for the stack's values.
Kept on purpose: our additions (manageJobsWithoutQueueName, managedJobsNamespaceSelector, waitForPodsReady:
the chart ships it commented out, and its field names are checked against that commented block) and one
departure, ``integrations.frameworks``, narrowed to the workload kinds the platform supports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from charts import chart_source, render_release
from gke_accel.model.queues.install import KUEUE

ENV = "staging"
ON_PURPOSE = {"integrations.frameworks": "narrowed to the kinds the platform supports (docs/queues.md)"}


def _flat(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def departures(shipped: dict[str, Any], ours: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Each setting of ``shipped`` that ``ours`` drops or changes: (Kueue's value, ours or None)."""
    flat = _flat(ours)
    return {k: (v, flat.get(k)) for k, v in _flat(shipped).items() if flat.get(k) != v}


def _chart_default() -> dict[str, Any]:
    values = yaml.safe_load((chart_source(KUEUE) / "values.yaml").read_text())
    config = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    assert isinstance(config, dict)
    return config


def _rendered(doc: dict[str, Any], stack_dir: Path) -> dict[str, Any]:
    configs = [yaml.safe_load(text) for o in render_release(doc, stack_dir, "kueue") if o["kind"] == "ConfigMap"
               for text in (o.get("data") or {}).values() if "kind: Configuration" in text]  # fmt: skip
    assert len(configs) == 1, f"one Kueue Configuration in the rendered release, found {len(configs)}"
    config = configs[0]
    assert isinstance(config, dict)
    return config


def test_what_staging_installs_keeps_kueues_shipped_configuration(
    shipped: dict[str, Any], shipped_stacks: Path
) -> None:
    shipped_default, ours = _chart_default(), _rendered(shipped[ENV], shipped_stacks / ENV)
    assert set(departures(shipped_default, ours)) == set(ON_PURPOSE)
    assert ours["clientConnection"] == {"qps": 300, "burst": 500}  # the 0.19.2 chart's (0.17.0 shipped 50 / 100)
    assert ours["controller"]["groupKindConcurrency"]["Workload.kueue.x-k8s.io"] == 10  # 0.17.0 shipped 5
    assert ours["manageJobsWithoutQueueName"] is True


def test_a_configuration_without_kueues_tuning_is_caught() -> None:
    shipped_default = _chart_default()
    dropped = {k: v for k, v in shipped_default.items() if k not in ("clientConnection", "controller")}
    found = departures(shipped_default, dropped)
    assert {"clientConnection.qps", "clientConnection.burst", "controller.groupKindConcurrency.Job.batch"} <= set(found)
    assert found["clientConnection.qps"] == (300, None)


def _chart_wait_for_pods_ready() -> dict[str, Any]:
    """The chart's commented-out ``waitForPodsReady`` example (charts/kueue/values.yaml), uncommented."""
    values = (chart_source(KUEUE) / "values.yaml").read_text()
    lines = values.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "#waitForPodsReady:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    block = [lines[start].replace("#", "", 1)]
    for line in lines[start + 1 :]:
        if not line.strip().startswith("#  "):
            break
        block.append(line.replace("#", "", 1))
    doc = yaml.safe_load("\n".join(b[indent:] for b in block))
    assert isinstance(doc, dict)
    return dict(doc["waitForPodsReady"])


def test_wait_for_pods_ready_is_set_with_the_fields_kueue_documents(
    shipped: dict[str, Any], shipped_stacks: Path
) -> None:
    """Code review R6: every field we set is one the chart's example spells (the pinned Kueue's config API),
    the timeout is set, requeuing backs off, and the chart's own configuration has no such block."""
    ours = _rendered(shipped[ENV], shipped_stacks / ENV)["waitForPodsReady"]
    documented = _chart_wait_for_pods_ready()
    assert set(ours) <= set(documented), set(ours) - set(documented)
    assert set(ours["requeuingStrategy"]) <= set(documented["requeuingStrategy"])
    assert ours["timeout"] == ours["recoveryTimeout"] == "1800s"
    assert ours["requeuingStrategy"]["backoffBaseSeconds"] == documented["requeuingStrategy"]["backoffBaseSeconds"]
    assert "waitForPodsReady" not in _chart_default()
