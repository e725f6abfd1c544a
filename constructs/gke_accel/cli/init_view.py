"""``gke-accel init ENV``: write a new environment config from flags, valid on the first ``validate``.

Pools are the smallest useful ones (a single-host TPU slice, one-GPU nodes) on Spot VMs in zones the
catalog lists for the accelerator; names (environment, cluster) do not collide with the environments
already in the folder. The text is checked with the same loader ``validate`` uses before it is written.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import yaml

from gke_accel.catalog import Catalog, load_catalog
from gke_accel.cli.common import EXIT_OK, Subcommands, add_command
from gke_accel.model import ConfigError, ConfigIssue, load_environment_text
from gke_accel.model.core.yaml_input import ConfigInputError, load_config_file
from gke_accel.model.environment.config_files import environment_files, load_environments

NAME = re.compile(r"[a-z]([-a-z0-9]{0,18}[a-z0-9])?")
PROJECT = re.compile(r"[a-z][-a-z0-9]{4,28}[a-z0-9]")
# Single-host topologies, smallest first: the first the generation offers is used.
TPU_TOPOLOGIES = ("2x2", "2x2x1", "1x1", "1x1x1", "2x2x2")
SCHEMA_LINE = "# yaml-language-server: $schema=../schema/gke-accel-config.schema.json"


def _existing(config_dir: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, path in environment_files(config_dir).items():
        try:  # the shared guards: a FIFO or device in the folder is refused, never read
            data = load_config_file(path)
        except ConfigInputError:
            data = None
        out[name] = data if isinstance(data, dict) else {}
    return out


def cluster_name(env: str, project: str, existing: dict[str, dict[str, Any]]) -> str:
    """``ml-<env>``, or with a number when another environment of the project already uses it."""
    taken = {
        str((d.get("cluster") or {}).get("name"))
        for d in existing.values()
        if d.get("project_id") == project and isinstance(d.get("cluster"), dict)
    }
    name, n = f"ml-{env}", 2
    while name in taken:
        name, n = f"ml-{env}-{n}", n + 1
    return name


def _listed_zones(catalog: Catalog, kind: str, accelerator: str, region: str) -> list[str]:
    facts = catalog.zones
    return [
        z
        for z in facts.zones_for(kind, accelerator)
        if z.rsplit("-", 1)[0] == region and set(facts.tags(kind, z, accelerator)) & facts.listed_tags
    ]


def _pools(args: argparse.Namespace, catalog: Catalog, issues: list[ConfigIssue]) -> tuple[list[Any], list[Any]]:
    tpus, gpus = [], []
    for wanted in args.accelerator or []:
        key = wanted.strip().lower()
        if key in catalog.tpu_generations:
            zones = _listed_zones(catalog, "tpu", key, args.region)
            if not zones:
                elsewhere = sorted({z.rsplit("-", 1)[0] for z in catalog.zones.zones_for("tpu", key)})
                issues.append(
                    ConfigIssue("--accelerator", f"{wanted!r}: no zone of {args.region} offers it", _few(elsewhere))
                )
                continue
            topology = _topology(catalog, key)
            tpus.append({"name": f"{key}-{args.env}", "generation": key, "topology": topology, "zone": zones[0]})
            tpus[-1] |= {"max_slices": 1, "consumption": "spot"}
        elif (model := catalog.gpu_model(key)) is not None:
            zones = _listed_zones(catalog, "gpu", model.accelerator_type, args.region)
            if not zones:
                elsewhere = sorted(
                    {z.rsplit("-", 1)[0] for z in catalog.zones.zones_for("gpu", model.accelerator_type)}
                )
                issues.append(
                    ConfigIssue("--accelerator", f"{wanted!r}: no zone of {args.region} offers it", _few(elsewhere))
                )
                continue
            alias = min(model.aliases, key=len)
            gpus.append({"name": f"{alias}-{args.env}", "gpu": alias, "gpus_per_node": 1, "zones": zones[:2]})
            gpus[-1] |= {"max_nodes": 2, "consumption": "spot"}
        else:
            valid = ", ".join([*catalog.tpu_generations, *catalog.gpu_names()])
            issues.append(ConfigIssue("--accelerator", f"{wanted!r} is not a TPU generation or GPU model", valid))
    return tpus, gpus


def _few(regions: list[str]) -> str:
    return "a region that offers it: " + ", ".join(regions[:8]) + (", ..." if len(regions) > 8 else "")


def config_text(args: argparse.Namespace, cluster: str, tpus: list[Any], gpus: list[Any], zones: list[str]) -> str:
    def flow(value: Any) -> str:
        return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=200).strip()

    lines = [
        SCHEMA_LINE,
        f"# {args.env}: written by `gke-accel init`. Every field: docs/config-reference.md",
        f"environment: {args.env}",
        f"project_id: {args.project}",
        f"region: {args.region}",
        "backend: {type: local}           # shared environments: {type: gcs, bucket: ..., prefix: ...}",
        "cluster:",
        f"  name: {cluster}",
        f"  location: {args.region}",
        f"  node_zones: {flow(zones)}",
        "  deletion_protection: false     # set true (the default) once it holds anything you keep",
        "  master_authorized_networks: [{cidr: 10.0.0.0/8, name: private}]",
    ]
    if tpus:
        lines += ["tpu_pools:", *(f"  - {flow(p)}" for p in tpus)]
    if gpus:
        lines += ["gpu_pools:", *(f"  - {flow(p)}" for p in gpus)]
    return "\n".join(lines) + "\n"


def _topology(catalog: Catalog, generation: str) -> str:
    dimensions = catalog.tpu_generations[generation].dimensions
    return next(t for t in TPU_TOPOLOGIES if t.count("x") + 1 == dimensions)


def cmd_init(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    config_dir = Path(args.config_dir)
    if config_dir.exists() and not config_dir.is_dir():
        raise ConfigError(
            [ConfigIssue("--config-dir", f"{config_dir} is not a folder", "a folder of <env>.yaml files")]
        )
    existing = _existing(config_dir) if config_dir.is_dir() else {}
    issues: list[ConfigIssue] = []
    if not NAME.fullmatch(args.env):
        issues.append(ConfigIssue("ENV", f"{args.env!r} is not a valid name", "lowercase letters, digits, '-'"))
    elif args.env in existing:
        issues.append(ConfigIssue("ENV", f"{args.env!r} exists already ({config_dir / args.env}.yaml)", "a new name"))
    if not PROJECT.fullmatch(args.project):
        issues.append(ConfigIssue("--project", f"{args.project!r} is not a project ID", "6-30 of a-z, 0-9, '-'"))
    if args.region not in catalog.zones.regions:
        issues.append(ConfigIssue("--region", f"{args.region!r} is not a known region", "e.g. us-central1"))
    if issues:
        raise ConfigError(issues)
    tpus, gpus = _pools(args, catalog, issues)
    if issues:
        raise ConfigError(issues)
    zones = sorted({z for p in gpus for z in p["zones"]} | {p["zone"] for p in tpus})
    zones = zones or sorted(z for z in catalog.zones.standard_zones if z.rsplit("-", 1)[0] == args.region)[:2]
    text = config_text(args, cluster_name(args.env, args.project, existing), tpus, gpus, zones)
    target = config_dir / f"{args.env}.yaml"
    load_environment_text(text, source=str(target), expected_name=args.env, catalog=catalog)
    config_dir.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    try:  # state locations and the like are compared across every file of the folder
        load_environments(config_dir, [args.env])
    except ConfigError:
        target.unlink()
        raise
    print(text, end="")
    print(f"\nwrote {target}; next: gke-accel validate --env {args.env} (or make synth)")
    return EXIT_OK


def register(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "init",
        "write a new environment config (config/ENV.yaml), valid on the first validate",
        "gke-accel init qa --project acme-ml-qa --region us-central1 --accelerator l4",
        "gke-accel init research --project acme-research --region us-east5 --accelerator v6e --accelerator h100",
        details=(
            "Each --accelerator becomes the smallest useful pool on Spot VMs (a single-host TPU slice, or\n"
            "one-GPU nodes scaling 0-2) in zones the catalog lists for it in the region. The cluster is named\n"
            "ml-ENV (numbered when another environment of the project uses the name). Refuses an existing ENV."
        ),
    )
    p.add_argument("env", metavar="ENV", help="the environment name: the file config/ENV.yaml and the stack")
    p.add_argument("--project", required=True, help="Google Cloud project ID (project_id)")
    p.add_argument("--region", required=True, help="region of the cluster, e.g. us-central1")
    p.add_argument(
        "--accelerator",
        action="append",
        help="a TPU generation (v5e, v6e, ...) or GPU model (l4, h100, ...); repeatable; default: none",
    )
    p.add_argument("--config-dir", default="config", help="folder of the environment files (default: config)")
    p.set_defaults(func=cmd_init)
