"""validate_stacks.py: scratch copies pinned to the mirror's builds (printed pinned vs validated),
a local backend instead of the bucket, and no offline plan for stacks that read the project from the API."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "validate_stacks", ROOT / "tools" / "terraform" / "validate_stacks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_build(mirror: Path, name: str, version: str, source: str | None) -> None:
    binary = (
        mirror / f"registry.terraform.io/hashicorp/{name}/{version}/linux_amd64/terraform-provider-{name}_v{version}"
    )
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    if source:
        binary.with_name(binary.name + ".source").write_text(source + "\n")


def stack(tmp_path: Path, data: dict[str, object] | None = None) -> Path:
    doc = {
        "terraform": {
            "backend": {"gcs": {"bucket": "acme-tf-state", "prefix": "prod"}},
            "required_providers": {
                "google": {"source": "hashicorp/google", "version": "8.7.0"},
                "kubernetes": {"source": "hashicorp/kubernetes", "version": "3.2.1"},
                "random": {"source": "hashicorp/random", "version": "3.6.0"},
            },
        },
        "data": data or {},
    }
    path = tmp_path / "out" / "stacks" / "prod"
    path.mkdir(parents=True)
    (path / "cdk.tf.json").write_text(json.dumps(doc))
    return path


def test_scratch_copy_pins_the_built_versions_and_says_what_it_validates(tmp_path: Path) -> None:
    tool = load_tool()
    mirror = tmp_path / "mirror"
    fake_build(mirror, "google", "8.0.0", "github.com/hashicorp/terraform-provider-google@v1.20.1-0.2026")
    fake_build(mirror, "google", "7.1.0", None)
    fake_build(mirror, "kubernetes", "3.2.1", None)
    builds = tool.mirror_builds(mirror)
    assert builds["google"][0] == "8.0.0" and builds["kubernetes"] == ("3.2.1", "Go module source not recorded")
    original = stack(tmp_path)
    before = (original / "cdk.tf.json").read_text()
    lines = tool.scratch_copy(original, tmp_path / "scratch", builds)
    assert lines == [
        "google pinned 8.7.0 -> validated with build 8.0.0 "
        "(github.com/hashicorp/terraform-provider-google@v1.20.1-0.2026)",
        "kubernetes pinned 3.2.1 -> validated with build 3.2.1 (Go module source not recorded)",
        "random pinned 3.6.0 -> no mirror build; terraform init installs 3.6.0",
    ]
    copy = json.loads((tmp_path / "scratch" / "cdk.tf.json").read_text())
    assert copy["terraform"]["backend"] == {"local": {"path": "terraform.tfstate"}}
    assert copy["terraform"]["required_providers"]["google"]["version"] == "8.0.0"
    assert (original / "cdk.tf.json").read_text() == before  # the synthesized stack is untouched


def test_a_stack_reading_the_project_from_the_api_is_not_planned_offline(tmp_path: Path) -> None:
    tool = load_tool()
    path = stack(tmp_path, {"google_project": {"p": {"project_id": "acme-ml-prod"}}})
    ok, text = tool.offline_plan(path, ["terraform-not-called"], {})
    assert ok is None
    assert text == "SKIPPED: data.google_project (reads the project number from the Resource Manager API)"


def test_the_summary_line_counts_valid_stacks_with_the_builds_used() -> None:
    tool = load_tool()
    builds = {"google": ("8.0.0", "m@v"), "kubernetes": ("3.2.1", "k@v")}
    records = [
        {"stack": "dev", "valid": True, "providers": ["google", "helm", "kubernetes"], "helm_releases": 4},
        {"stack": "prod", "valid": False, "providers": ["google", "helm", "kubernetes"], "helm_releases": 1},
    ]
    summary = tool.summarize(records, builds)
    assert summary["line"] == (
        "terraform: 1/2 stacks valid (google 8.0.0, helm not built, kubernetes 3.2.1); "
        "4 helm releases validated and planned"
    )
    assert (summary["stacks"], summary["valid"], summary["helm_releases"], summary["providers"]["helm"]) == (
        2, 1, 4, None)  # fmt: skip
    assert tool.summarize([], builds)["line"] == "terraform: 0/0 stacks valid (); 0 helm releases validated and planned"


def test_the_offline_plan_reads_pinned_oci_charts_from_their_go_modules(tmp_path: Path) -> None:
    """The helm provider pulls a release's OCI chart when it plans; offline, the pinned Kueue chart is read
    from the Go module the project packages it from, and an OCI chart of no known module is refused."""
    tool = load_tool()
    doc = {"resource": {"helm_release": {
        "kueue": {"name": "kueue", "repository": "oci://registry.k8s.io/kueue/charts", "chart": "kueue",
                  "version": "0.17.0"},
        "queues": {"name": "gke-accel-queues", "chart": "assets/queues-chart/AB12"},
    }}}  # fmt: skip
    asked = []

    def download(source: str) -> Path:
        asked.append(source)
        return tmp_path / "mod"

    modules = {"oci://registry.k8s.io/kueue/charts": "sigs.k8s.io/kueue"}
    lines = tool.module_charts(doc, modules, download)
    assert asked == ["sigs.k8s.io/kueue@v0.17.0"]
    kueue = doc["resource"]["helm_release"]["kueue"]
    assert kueue["chart"] == str(tmp_path / "mod" / "charts" / "kueue") and "repository" not in kueue
    assert kueue["version"] == "0.17.0"
    assert doc["resource"]["helm_release"]["queues"]["chart"] == "assets/queues-chart/AB12"
    assert lines == [
        "helm_release.kueue: chart oci://registry.k8s.io/kueue/charts/kueue read from sigs.k8s.io/kueue@v0.17.0"
    ]
    other = {"resource": {"helm_release": {"x": {"repository": "oci://example.com/c", "chart": "x", "version": "1"}}}}
    with pytest.raises(ValueError, match=r"no Go module known for oci://example\.com/c"):
        tool.module_charts(other, modules, download)
    # the product's pins are what the tool knows
    assert tool.oci_chart_modules() == {"oci://registry.k8s.io/kueue/charts": "sigs.k8s.io/kueue",
                                        "oci://registry.k8s.io/jobset/charts": "sigs.k8s.io/jobset"}  # fmt: skip
