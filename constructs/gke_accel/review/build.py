"""Synthesize one side of the review (head or base): every environment of a config folder.

``synth_side`` returns plain JSON-able data so that the same function serves the in-process path
and the subprocess fallback (``_worker.py``). Imports of the model, the constructs and the stacks
are lazy: they resolve to whichever revision's code is loaded (see ``git_base.base_code``).
Relative imports only: ``_worker.py`` loads this package under a private name next to a base
revision that has no review package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .facts import environment_facts, facts_from_dict, facts_to_dict, model_attr
from .model import EnvironmentFacts

# The app moved into the package in b0b2298 (2026-11-30); an older base is not synthesized.
OLDEST_BASE = "a review base must be at or after b0b2298 (2026-11-30, the app moved into the package)"


@dataclass
class SideResult:
    """One revision, synthesized: stack JSON and facts per environment, config errors per environment."""

    label: str
    stacks_dir: Path
    stacks: dict[str, dict[str, Any]] = field(default_factory=dict)
    facts: dict[str, EnvironmentFacts] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # env ("(config)" for the folder) -> message
    tpu_machine_types: tuple[str, ...] = ()
    method: str = "in-process"


def synth_side(config_dir: Path, outdir: Path, names: list[str] | None = None) -> dict[str, Any]:
    """Load each environment on its own (one broken file does not hide the others), synthesize the
    valid ones in one app, and describe them. Needs the provider bindings (already loaded, or loaded now)."""
    try:
        from gke_accel.stacks.app import synth_environments
    except ImportError:  # the repository's stacks/app.py is no part of the package: never imported from here
        raise ImportError(f"this revision has no gke_accel.stacks.app: {OLDEST_BASE}") from None

    from gke_accel.model import ConfigError

    load_environments = model_attr(
        "load_environments", "gke_accel.model.environment.config_files", "gke_accel.model.config_files"
    )

    files = sorted(p.stem for p in Path(config_dir).glob("*.yaml"))
    wanted = [n for n in (names or files) if n in files]
    plans: list[Any] = []
    errors: dict[str, str] = {}
    if not files:
        errors["(config)"] = f"no environment files (*.yaml) in {config_dir}"
    for name in wanted:
        try:
            plans += load_environments(Path(config_dir), [name])
        except ConfigError as err:
            errors[name] = err.render()
    if plans:
        synth_environments(plans, str(outdir))
    return {
        "envs": [p.name for p in plans],
        "errors": errors,
        "facts": {p.name: facts_to_dict(environment_facts(p)) for p in plans},
        "tpu_machine_types": _tpu_machine_types(),
    }


def _tpu_machine_types() -> list[str]:
    try:
        from gke_accel.catalog import load_catalog

        return sorted(m for gen in load_catalog().tpu_generations.values() for m in gen.machine_types)
    except Exception:  # an older catalog shape: the prefixes in force_new.yaml still apply
        return []


def side_result(label: str, outdir: Path, data: dict[str, Any], method: str) -> SideResult:
    """Read what ``synth_side`` wrote and reported into a SideResult."""
    stacks_dir = Path(outdir) / "stacks"
    stacks = {env: json.loads((stacks_dir / env / "cdk.tf.json").read_text()) for env in data["envs"]}
    return SideResult(
        label=label,
        stacks_dir=stacks_dir,
        stacks=stacks,
        facts={env: facts_from_dict(f) for env, f in data["facts"].items()},
        errors=dict(data["errors"]),
        tpu_machine_types=tuple(data.get("tpu_machine_types", ())),
        method=method,
    )


def synth_current(label: str, config_dir: Path, outdir: Path, names: list[str] | None = None) -> SideResult:
    """Synthesize with the code already loaded (the head)."""
    return side_result(label, outdir, synth_side(config_dir, outdir, names), "in-process")
