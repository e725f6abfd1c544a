"""No cycle between the capability packages of ``gke_accel.model`` (``model/<pkg>``).

Every module under ``constructs/gke_accel/model`` is parsed with ``ast``; every import counts, also
one inside ``if TYPE_CHECKING:`` or a function body (a cycle hidden there is still a cycle a
newcomer has to understand). An edge ``a -> b`` means a module of ``model/a`` imports one of
``model/b``; modules directly in ``model/`` (the package's front door) are not a capability.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

MODEL = Path(__file__).resolve().parents[2] / "constructs" / "gke_accel" / "model"
PREFIX = "gke_accel.model."


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> Iterable[str]:
    """Every module name ``tree`` imports, anywhere in it (relative imports resolved)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`


def _capability(module: str, root: Path) -> str | None:
    if not module.startswith(PREFIX):
        return None
    rest = module[len(PREFIX) :].split(".")
    return rest[0] if len(rest) > 1 or (root / rest[0]).is_dir() else None


def package_graph(root: Path = MODEL) -> dict[str, set[str]]:
    """Capability package -> the capability packages its modules import."""
    graph: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        module = _module_name(path, root)
        own = _capability(module, root)
        if own is None:
            continue
        deps = graph.setdefault(own, set())
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")), module, path.name == "__init__.py"):
            other = _capability(name, root)
            if other is not None and other != own:
                deps.add(other)
    return graph


def find_cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one package, each as one cycle through it
    (``[a, b, a]``), sorted; empty when the graph is a DAG (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(_cycle_through(graph, c) for c in components)


def _cycle_through(graph: Mapping[str, Iterable[str]], component: set[str]) -> list[str]:
    """A shortest cycle from the component's first package back to it, inside the component."""
    start = min(component)
    paths = [[start]]
    while paths:
        path = paths.pop(0)
        for nxt in sorted(graph.get(path[-1], ())):
            if nxt == start:
                return [*path, start]
            if nxt in component and nxt not in path:
                paths.append([*path, nxt])
    raise AssertionError(component)  # a strongly connected component always has one


def _component(graph: Mapping[str, Iterable[str]], start: str) -> set[str]:
    """The packages on some cycle through ``start``."""

    def reach(frm: str) -> set[str]:
        seen, todo = {frm}, [frm]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    return {p for p in reach(start) if start in reach(p)}


def test_no_cycle_between_model_capabilities() -> None:
    graph = package_graph()
    assert {"cluster", "core", "environment", "pools", "queues", "teams"} <= set(graph), sorted(graph)
    cycles = find_cycles(graph)
    named = [f"{' -> '.join(c)} (packages in this cycle: {', '.join(sorted(_component(graph, c[0])))})" for c in cycles]
    assert not cycles, "import cycles between model/ packages: " + "; ".join(named)


def test_a_cycle_is_named() -> None:
    graph = {"cluster": {"security", "core"}, "security": {"environment"}, "environment": {"cluster"}, "core": set()}
    assert find_cycles(graph) == [["cluster", "security", "environment", "cluster"]]


def test_a_dag_has_no_cycle() -> None:
    graph = {"environment": {"cluster", "queues", "teams"}, "queues": {"teams", "pools"}, "teams": {"pools"}}
    assert find_cycles(graph) == []


def test_type_checking_and_function_imports_count(tmp_path: Path) -> None:
    for pkg, body in {
        "alerts": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gke_accel.model.env.plan import P\n",
        "env": "def f():\n    from gke_accel.model.alerts import rules\n",
    }.items():
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "mod.py").write_text(body)
    # the same parser over a synthetic tree laid out like model/
    fake = tmp_path / "gke_accel" / "model"
    fake.mkdir(parents=True)
    for pkg in ("alerts", "env"):
        (tmp_path / pkg).rename(fake / pkg)
    graph = package_graph(fake)
    assert graph == {"alerts": {"env"}, "env": {"alerts"}}
    assert find_cycles(graph) == [["alerts", "env", "alerts"]]


def test_capabilities_never_import_the_environment_root() -> None:
    graph = package_graph()
    capabilities = {"cluster", "core", "observability", "platform", "pools", "queues", "security", "teams"}
    assert {p for p in capabilities if "environment" in graph.get(p, set())} == set()


def test_platform_and_queues_read_teams_not_each_other() -> None:
    graph = package_graph()
    assert "queues" not in graph["platform"] and "platform" not in graph["queues"]
    assert "teams" in graph["platform"] and "teams" in graph["queues"]
    assert not graph["teams"] & {"platform", "queues", "environment"}


# The floors of the whole package (docs/architecture.md): a package imports only from lower floors.
# A new package or top-level module must be placed here (test_every_package_has_a_floor).
ROOT_PACKAGE = MODEL.parent
FLOORS = {
    "catalog": 0,
    "frameworks": 0,
    "output_dir": 0,
    "scratch": 0,
    "tables": 0,  # plain-text tables: below the CLI and the simulator, which both print them
    "model": 1,
    "policy": 1,
    "cdk": 2,
    "twin": 2,
    "workloads": 2,
    "simulate": 3,
    "stacks": 3,
    "review": 4,
    "cli": 5,
}
# the repository's own entry point (repository root stacks/app.py, not installed): nothing in the
# package may import it
REPOSITORY_MODULES = ("stacks",)


def whole_graph(root: Path = ROOT_PACKAGE) -> dict[str, set[str]]:
    """Top-level package or module of ``gke_accel`` -> the ones it imports (``(repository) stacks``
    for the repository root's ``stacks`` package)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        own = relative.parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        module = ".".join(["gke_accel", *relative.with_suffix("").parts])
        deps = graph.setdefault(own, set())
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")), module, path.name == "__init__.py"):
            parts = name.split(".")
            if parts[0] in REPOSITORY_MODULES:
                deps.add(f"(repository) {parts[0]}")
            elif parts[0] == "gke_accel" and len(parts) > 1 and parts[1] != own and parts[1] in FLOORS:
                deps.add(parts[1])
    return graph


def upward_arrows(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import of a package on the same or a higher floor, or of the repository's own modules."""
    bad = []
    for own, deps in sorted(graph.items()):
        for dep in sorted(deps):
            if dep.startswith("(repository)"):
                bad.append(f"{own} -> {dep}: the package never imports the repository's entry point")
            elif FLOORS[dep] >= FLOORS[own]:
                bad.append(f"{own} (floor {FLOORS[own]}) -> {dep} (floor {FLOORS[dep]})")
    return bad


def test_every_package_has_a_floor() -> None:
    found = {p.name.removesuffix(".py") for p in ROOT_PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    found -= {"__init__", "__pycache__", "py.typed"}
    assert found <= set(FLOORS), f"place {sorted(found - set(FLOORS))} in FLOORS (docs/architecture.md)"


def test_no_package_imports_upward() -> None:
    graph = whole_graph()
    assert {"cli", "model", "simulate", "review", "stacks", "workloads"} <= set(graph)
    assert upward_arrows(graph) == []


def test_an_upward_arrow_is_named() -> None:
    graph = {"simulate": {"tables", "cli"}, "review": {"(repository) stacks", "stacks"}, "tables": set()}
    assert upward_arrows(graph) == [
        "review -> (repository) stacks: the package never imports the repository's entry point",
        "simulate (floor 3) -> cli (floor 5)",
    ]
