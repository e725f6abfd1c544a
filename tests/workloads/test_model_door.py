"""Each workload tool has its own narrow door into ``gke_accel.model``: ``workloads/<tool>/_model.py``
(lint, generate, size, explain, verify) and ``workloads/_model.py`` for the modules directly in
``workloads/``. No other module under ``constructs/gke_accel/workloads`` imports a ``gke_accel.model``
module, at any depth (function-local and ``TYPE_CHECKING`` imports count, relative imports are
resolved); a module imports only its own folder's door; and a door exports only names its folder
uses. A move inside ``model/`` then touches the doors only (code review A4), and no tool sees more of
the model than it reads (the 2026-12-04 review: one door of 56 names)."""

from __future__ import annotations

import ast
from pathlib import Path

WORKLOADS = Path(__file__).resolve().parents[2] / "constructs" / "gke_accel" / "workloads"
DOOR = WORKLOADS / "_model.py"
DOORS = sorted(WORKLOADS.rglob("_model.py"))


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


def test_no_module_of_workloads_but_a_door_imports_the_model() -> None:
    modules = sorted(WORKLOADS.rglob("*.py"))
    assert DOOR in modules and len(modules) > 20
    offenders = {
        str(path.relative_to(WORKLOADS)): found
        for path in modules
        if path not in DOORS and (found := model_imports(path.read_text(encoding="utf-8"), _package(path)))
    }
    assert offenders == {}, "import these through the folder's _model.py instead"


def test_every_door_imports_the_model() -> None:
    assert {str(d.relative_to(WORKLOADS)) for d in DOORS} == {
        "_model.py",
        "explain/_model.py",
        "generate/_model.py",
        "lint/_model.py",
        "size/_model.py",
        "verify/_model.py",
    }
    for door in DOORS:
        assert model_imports(door.read_text(encoding="utf-8"), _package(door)), door


def _door_imports(path: Path) -> dict[str, set[str]]:
    """Door module (``gke_accel.workloads[.<tool>]._model``) -> the names ``path`` imports from it."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("._model"):
            found.setdefault(node.module, set()).update(a.name for a in node.names)
    return found


def _exports(door: Path) -> set[str]:
    for node in ast.parse(door.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            assert isinstance(node.value, ast.List)
            return {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    raise AssertionError(f"{door} has no __all__")


def test_each_module_uses_its_own_door_and_each_door_only_what_its_folder_uses() -> None:
    used: dict[Path, set[str]] = {d: set() for d in DOORS}
    wrong = []
    for path in sorted(WORKLOADS.rglob("*.py")):
        if path in DOORS:
            continue
        own = path.parent / "_model.py"
        own_module = ".".join([*_package(path), "_model"])
        for module, names in _door_imports(path).items():
            if module != own_module:
                wrong.append(f"{path.relative_to(WORKLOADS)} imports {module}")
            else:
                used[own] |= names
    assert wrong == [], "each module imports the model through its own folder's door"
    unused = {str(d.relative_to(WORKLOADS)): sorted(_exports(d) - used[d]) for d in DOORS if _exports(d) - used[d]}
    assert unused == {}, "a door exports only what its folder uses: remove these"
    # no tool's door is as wide as the old one (56); lint's is the widest (30: its rules and the node-fit margins)
    assert max(len(_exports(d)) for d in DOORS) <= 32


def test_an_unused_export_is_found(tmp_path: Path) -> None:
    door = tmp_path / "_model.py"
    door.write_text('from gke_accel.model import A, B\n\n__all__ = ["A", "B"]\n')
    user = tmp_path / "rule.py"
    user.write_text("from gke_accel.workloads.lint._model import A\n")
    assert _exports(door) - _door_imports(user)["gke_accel.workloads.lint._model"] == {"B"}
