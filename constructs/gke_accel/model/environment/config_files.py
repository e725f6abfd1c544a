"""Find and load the environment files of a config folder (``config/<env>.yaml``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gke_accel.model.core.errors import ConfigError, ConfigIssue
from gke_accel.model.core.yaml_input import ConfigInputError, load_config_file
from gke_accel.model.environment.load import load_environment
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.security.state import shared_backends, shared_clusters


def environment_files(config_dir: Path) -> dict[str, Path]:
    return {p.stem: p for p in sorted(config_dir.glob("*.yaml"))}


CONFIG_DIR_ENV = "GKE_ACCEL_CONFIG_DIR"  # the folder when --config-dir is not given (cli/main.py)


def no_environment_files(config_dir: Path) -> ConfigIssue:
    """An empty or missing folder, named in full (a relative ``config`` read from another folder is the
    usual cause: an ML engineer in their own repository), with the ways to point at the right one."""
    where = config_dir.resolve()
    what = "does not exist" if not where.exists() else "has no environment files (*.yaml)"
    relative = "" if config_dir.is_absolute() else f" ({config_dir} under the current folder {Path.cwd()})"
    return ConfigIssue(
        "--config-dir",
        f"{where}{relative} {what}",
        f"run from the gke-accel repository, pass --config-dir PATH/TO/gke-accel/config, or set {CONFIG_DIR_ENV}",
    )


def load_environments(config_dir: Path, names: list[str] | None = None) -> list[EnvironmentPlan]:
    """Load the named environments (all when ``names`` is empty); report every file's errors together."""
    files = environment_files(config_dir)
    if not files:
        raise ConfigError([no_environment_files(config_dir)])
    wanted = names or list(files)
    issues: list[ConfigIssue] = []
    plans: list[EnvironmentPlan] = []
    for name in wanted:
        if name not in files:
            issues.append(ConfigIssue("--env", f"{name!r} has no config file in {config_dir}", ", ".join(files)))
            continue
        try:
            plans.append(load_environment(files[name]))
        except ConfigError as err:
            issues.extend(ConfigIssue(f"{err.source}: {i.path}", i.message, i.valid) for i in err.issues)
    raw = _raw_files(files)
    shared = [*shared_backends(raw), *shared_clusters(raw)]
    issues += [i for i in shared if any(i.path.startswith(f"{files[n]}:") for n in wanted)]
    if issues:
        raise ConfigError(issues)
    return plans


def _raw_files(files: dict[str, Path]) -> dict[str, tuple[str, Any]]:
    """Every environment file's YAML (None when unreadable; its own load reports why), so that
    state locations are compared across all files even when only some are loaded."""
    raw: dict[str, tuple[str, Any]] = {}
    for name, path in files.items():
        try:  # the same guards as every config read (size, encoding, alias bombs)
            raw[name] = (str(path), load_config_file(path))
        except ConfigInputError:
            raw[name] = (str(path), None)
    return raw
