#!/usr/bin/env python3
"""local_stack.py - the in-cluster half of a synthesized stack as a Terraform configuration for another
cluster (the e2e tier's local API server), applied with the real kubernetes and helm providers.

    python tools/terraform/local_stack.py STACK_DIR KUBECONFIG OUT_DIR [--chart RELEASE=DIR ...]

What it keeps, and what it changes (nothing else):
  - every ``kubernetes_*`` resource and every ``helm_release``, as synthesized; every other resource
    (the GKE cluster, its pools, IAM, ...), data source, output, variable and the backend are left out;
  - every ``kubernetes`` and ``helm`` provider block (aliases kept): the connection settings (host, CA,
    token, exec, client certificates, config paths) are replaced by ``config_path = KUBECONFIG``; every
    other setting (``ignore_labels``, ``burst_limit``, ``experiments``, ...) is kept. A helm block's
    ``kubernetes`` connection may be written as an object (helm provider 3.x) or as a one-element list
    (the 2.x block); the output is the object the 3.x provider takes. The connection's value (the
    cluster's IP or DNS endpoint, with or without a CA) therefore does not matter here;
  - ``depends_on`` entries naming a left-out resource (the cluster, the system pool) are dropped: they
    order the apply on GKE, and here nothing stands for them;
  - ``--chart RELEASE=DIR``: that ``helm_release`` installs the chart in DIR (its ``repository`` and
    repository credentials removed, ``version`` kept), e.g. the pinned OCI charts read offline from their
    Go modules. The generated charts (Terraform asset directories next to the stack) are copied along.
A kept resource whose *arguments* refer to a left-out one (``${google_container_cluster.x.endpoint}``)
cannot be applied on its own: ValueError names it. The provider versions are pinned to the builds the
caller names (``versions``; the stacks' own pins are returned next to them).
Exit 0 written, 2 usage or a reference outside the in-cluster half.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

IN_CLUSTER_PROVIDERS = ("kubernetes", "helm")
# the kubernetes provider's connection arguments (and the helm provider's ``kubernetes`` ones)
CONNECTION = frozenset({
    "host", "username", "password", "insecure", "tls_server_name", "client_certificate", "client_key",
    "cluster_ca_certificate", "config_path", "config_paths", "config_context", "config_context_auth_info",
    "config_context_cluster", "token", "proxy_url", "exec",
})  # fmt: skip
REPOSITORY_KEYS = ("repository", "repository_ca_file", "repository_cert_file", "repository_key_file",
                   "repository_username", "repository_password", "pass_credentials")  # fmt: skip
REFERENCE = re.compile(r"\$\{([^}]*)\}")
ADDRESS = re.compile(r"(?<![\w.])([a-z][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_-]*)")  # not an attribute's tail


def kept(resource_type: str) -> bool:
    return resource_type.startswith("kubernetes_") or resource_type == "helm_release"


def _references(value: Any) -> list[str]:
    """Every ``type.name`` address an interpolation in ``value`` names (functions and attributes aside)."""
    found = []
    for expression in REFERENCE.findall(json.dumps(value)):
        for resource_type, name in ADDRESS.findall(expression):
            if "_" in resource_type or resource_type in ("data", "var", "local", "module"):
                found.append(f"{resource_type}.{name}")
    return found


def _connection(block: Mapping[str, Any], kubeconfig: Path) -> dict[str, Any]:
    """``block`` with its connection replaced by the kubeconfig; settings that are not about the connection kept."""
    kept_settings = {k: copy.deepcopy(v) for k, v in block.items() if k not in CONNECTION}
    outside = _references(kept_settings)
    if outside:
        raise ValueError(f"a provider setting refers to {sorted(set(outside))}, outside the in-cluster half")
    return {**kept_settings, "config_path": str(kubeconfig)}


def _provider_blocks(stack: Mapping[str, Any], kubeconfig: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for name in IN_CLUSTER_PROVIDERS:
        blocks = stack.get("provider", {}).get(name, [])
        for block in [blocks] if isinstance(blocks, dict) else blocks:
            if name == "kubernetes":
                out.setdefault(name, []).append(_connection(block, kubeconfig))
                continue
            inner = block.get("kubernetes", {})
            if isinstance(inner, list):  # the 2.x block form: a list of one object
                inner = inner[0] if inner else {}
            others = {k: copy.deepcopy(v) for k, v in block.items() if k != "kubernetes"}
            if outside := _references(others):
                raise ValueError(f"a helm provider setting refers to {sorted(set(outside))}, outside the in-cluster")
            out.setdefault(name, []).append({**others, "kubernetes": _connection(inner, kubeconfig)})
    return out


def in_cluster_part(
    stack: Mapping[str, Any],
    kubeconfig: Path,
    versions: Mapping[str, str],
    charts: Mapping[str, Path] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the Terraform configuration, a report): the stack's ``kubernetes_*`` resources and ``helm_release``s
    against ``kubeconfig``, providers pinned to ``versions`` ({"kubernetes": "3.2.1", "helm": "3.2.0"}),
    releases named in ``charts`` installed from those directories. The report lists what the stack pinned,
    the ``depends_on`` entries dropped, the resources left out and the releases whose chart was replaced."""
    charts = charts or {}
    resources: dict[str, dict[str, Any]] = {}
    left_out: list[str] = []
    for resource_type, by_name in stack.get("resource", {}).items():
        if kept(resource_type):
            resources[resource_type] = copy.deepcopy(by_name)
        else:
            left_out += [f"{resource_type}.{n}" for n in by_name]
    addresses = {f"{t}.{n}" for t, by_name in resources.items() for n in by_name}
    dropped: list[str] = []
    replaced: dict[str, str] = {}
    problems: list[str] = []
    for resource_type, by_name in resources.items():
        for name, body in by_name.items():
            address = f"{resource_type}.{name}"
            arguments = {k: v for k, v in body.items() if k not in ("depends_on", "provider")}
            outside = sorted({r for r in _references(arguments) if r not in addresses})
            if outside:
                problems.append(f"{address} refers to {outside}")
            if "depends_on" in body:
                deps = body.pop("depends_on")
                stays = [d for d in deps if d in addresses]
                dropped += [f"{address} -> {d}" for d in deps if d not in stays]
                if stays:
                    body["depends_on"] = stays
            if resource_type == "helm_release" and body.get("name") in charts:
                for key in REPOSITORY_KEYS:
                    body.pop(key, None)
                body["chart"] = str(charts[body["name"]])
                replaced[body["name"]] = body["chart"]
    if problems:
        raise ValueError("outside the in-cluster half (it could not be applied on its own): " + "; ".join(problems))
    unknown = sorted(set(charts) - {b.get("name") for b in resources.get("helm_release", {}).values()})
    if unknown:
        raise ValueError(f"--chart names releases the stack does not have: {unknown}")
    providers = _provider_blocks(stack, kubeconfig)
    used = {t.split("_")[0] for t in resources} & set(IN_CLUSTER_PROVIDERS)
    pinned = {p: stack.get("terraform", {}).get("required_providers", {}).get(p, {}).get("version") for p in used}
    missing = sorted(used - set(versions))
    if missing:
        raise ValueError(f"no provider version given for {missing}")
    config: dict[str, Any] = {
        "terraform": {
            "required_providers": {p: {"source": f"hashicorp/{p}", "version": versions[p]} for p in sorted(used)}
        },
        "provider": {p: providers[p] for p in sorted(used) if p in providers},
        "resource": resources,
    }
    report = {"pinned": pinned, "built": {p: versions[p] for p in sorted(used)}, "dropped_depends_on": dropped,
              "left_out": left_out, "charts_replaced": replaced}  # fmt: skip
    return config, report


def write(stack_dir: Path, out: Path, config: Mapping[str, Any]) -> Path:
    """``out/main.tf.json`` and the stack's asset directories (the generated charts) next to it."""
    out.mkdir(parents=True, exist_ok=True)
    for asset in stack_dir.iterdir():
        if asset.is_dir() and not asset.name.startswith(".terraform"):
            shutil.copytree(asset, out / asset.name, dirs_exist_ok=True)
    (out / "main.tf.json").write_text(json.dumps(config, indent=1))
    return out / "main.tf.json"


def _charts(pairs: Iterable[str]) -> dict[str, Path]:
    charts = {}
    for pair in pairs:
        name, _, where = pair.partition("=")
        if not name or not where:
            raise ValueError(f"--chart {pair!r}: expected RELEASE=DIR")
        charts[name] = Path(where).resolve()
    return charts


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stack_dir", type=Path)
    parser.add_argument("kubeconfig", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--chart", action="append", default=[], metavar="RELEASE=DIR")
    parser.add_argument("--kubernetes-version", default="3.2.1")
    parser.add_argument("--helm-version", default="3.2.0")
    args = parser.parse_args(argv)
    try:
        stack = json.loads((args.stack_dir / "cdk.tf.json").read_text())
        versions = {"kubernetes": args.kubernetes_version, "helm": args.helm_version}
        config, report = in_cluster_part(stack, args.kubeconfig.resolve(), versions, _charts(args.chart))
    except (OSError, ValueError) as exc:
        print(f"local_stack.py: {exc}", file=sys.stderr)
        return 2
    print(write(args.stack_dir, args.out, config))
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
