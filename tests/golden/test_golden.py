"""HEAD writes exactly the committed golden snapshots (``tests/golden/goldens.py``): every shipped
environment's synthesized stack, its resource addresses and its ``gke-accel manifests`` output.
A difference fails with a unified diff; ``make golden`` records an intended change."""

from __future__ import annotations

import difflib
from pathlib import Path

import goldens
import pytest

MAX_DIFF_LINES = 200


def _diff(name: str, want: str | None, got: str | None) -> str:
    lines = list(
        difflib.unified_diff(
            (want or "").splitlines(keepends=True),
            (got or "").splitlines(keepends=True),
            f"tests/golden/{name} (committed)" if want is not None else "(no snapshot committed)",
            f"{name} (HEAD)" if got is not None else "(HEAD no longer writes it)",
            n=2,
        )
    )
    cut = f"... {len(lines) - MAX_DIFF_LINES} more diff lines\n" if len(lines) > MAX_DIFF_LINES else ""
    return "".join(lines[:MAX_DIFF_LINES]) + cut


@pytest.fixture(scope="module")
def head(shipped_stacks: Path) -> dict[str, str]:
    from gke_accel.model.environment.config_files import load_environments

    return goldens.snapshot(shipped_stacks, list(load_environments(goldens.CONFIG_DIR)))


def test_every_shipped_environment_has_a_snapshot() -> None:
    recorded = goldens.recorded()
    envs = goldens.environments()
    assert envs, "no environments in config/"
    missing = [f"{e}/{f}" for e in envs for f in goldens.FILES if f"{e}/{f}" not in recorded]
    assert not missing, f"no golden snapshot for {missing}: run `make golden` and commit tests/golden"


def test_head_writes_the_golden_snapshots(head: dict[str, str]) -> None:
    recorded = goldens.recorded()
    changed = sorted(n for n in {*recorded, *head} if recorded.get(n) != head.get(n))
    if changed:
        diffs = "".join(_diff(n, recorded.get(n), head.get(n)) for n in changed)
        pytest.fail(
            f"{len(changed)} snapshot(s) differ from what HEAD writes: {', '.join(changed)}\n"
            "An intended change: run `make golden`, review `git diff tests/golden`, commit it.\n\n" + diffs,
            pytrace=False,
        )


def test_a_changed_stack_is_reported_with_its_diff(head: dict[str, str]) -> None:
    """The comparison can fail: one changed value in a stack shows up as a one-line diff."""
    name = next(n for n in head if n.endswith("/cdk.tf.json"))
    changed = head[name].replace('"managed-by": "gke-accel"', '"managed-by": "someone-else"', 1)
    assert changed != head[name]
    diff = _diff(name, head[name], changed)
    body = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert [line[0] + line[1:].strip() for line in body] == [
        '-"managed-by": "gke-accel",',
        '+"managed-by": "someone-else",',
    ]


def test_the_framework_version_is_the_only_normalised_value() -> None:
    stack = '{"//": {"metadata": {"version": "0.24.0", "stackName": "dev"}}, "resource": {"a": {"b": {}}}}'
    text = goldens.normalised_stack(stack)
    assert "0.24.0" not in text and goldens.FRAMEWORK_VERSION in text and '"stackName": "dev"' in text
    assert goldens.addresses(text) == "a.b\n"
