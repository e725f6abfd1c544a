"""``workloads/_model.py`` is the only door from the workload tools into ``gke_accel.model``: no other
module under ``constructs/gke_accel/workloads`` imports a ``gke_accel.model`` module, at any depth
(function-local and ``TYPE_CHECKING`` imports count, relative imports are resolved). A move inside
``model/`` then touches ``_model.py`` only (code review A4)."""

from __future__ import annotations

import ast
from pathlib import Path

WORKLOADS = Path(__file__).resolve().parents[2] / "constructs" / "gke_accel" / "workloads"
DOOR = WORKLOADS / "_model.py"


def _package(path: Path) -> list[str]:
    """The package relative imports of a module under workloads/ start from, e.g. gke_accel.workloads.lint
    (for lint/queues.py and for lint/__init__.py alike)."""
    return list(path.relative_to(WORKLOADS.parent.parent).parent.parts)


def model_imports(source: str, package: list[str]) -> list[str]:
    """Every module of ``gke_accel.model`` that ``source`` imports, as ``line: module``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            # ``from gke_accel import model`` names the package itself
            modules = [module] + [f"{module}.{a.name}" for a in node.names if module == "gke_accel"]
        found += [f"{node.lineno}: {m}" for m in modules if m == "gke_accel.model" or m.startswith("gke_accel.model.")]
    return found


def test_the_scan_sees_every_way_to_import_the_model() -> None:
    package = ["gke_accel", "workloads", "lint"]
    assert model_imports("from gke_accel.model.queues.names import QUEUE_LABEL", package) == [
        "1: gke_accel.model.queues.names"
    ]
    assert model_imports("import gke_accel.model.pools.node_shape as s", package) == [
        "1: gke_accel.model.pools.node_shape"
    ]
    assert model_imports("def f():\n    from ...model import queues", package) == ["2: gke_accel.model"]
    assert model_imports("from gke_accel import model", package) == ["1: gke_accel.model"]
    assert model_imports("from gke_accel.workloads._model import QUEUE_LABEL\nimport gke_accel.catalog", package) == []


def test_no_module_of_workloads_but_the_door_imports_the_model() -> None:
    modules = sorted(WORKLOADS.rglob("*.py"))
    assert DOOR in modules and len(modules) > 20
    offenders = {
        str(path.relative_to(WORKLOADS)): found
        for path in modules
        if path != DOOR and (found := model_imports(path.read_text(encoding="utf-8"), _package(path)))
    }
    assert offenders == {}, "import these through gke_accel.workloads._model instead"


def test_the_door_itself_imports_the_model() -> None:
    assert model_imports(DOOR.read_text(encoding="utf-8"), ["gke_accel", "workloads"])
