"""``gke-accel workload new``: a ready Job, JobSet or Deployment for a team, as YAML.

Model only: no provider bindings, no cluster access.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from typing import Any

import yaml

from gke_accel.cli.common import EXIT_OK, add_command, selected_plans
from gke_accel.model import ConfigError, ConfigIssue
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.generate.request import KINDS


def to_yaml(objects: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(objects, sort_keys=False, default_flow_style=False)


# The object's name as the API server accepts it: an RFC 1123 label (a Job's name becomes its pods'
# ``batch.kubernetes.io/job-name`` label value and hostname prefix; a JobSet's names its child Jobs)
NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
COUNTS = ("chips", "gpus", "slices", "nodes", "replicas", "completions", "parallelism", "port", "weights_gib")


def flag_issues(args: argparse.Namespace) -> list[ConfigIssue]:
    """The flags' own mistakes, all at once, before any generation blames a config field for them."""
    issues = []
    if not NAME.match(args.name):
        message = f"{args.name[:70]!r} is not a lowercase RFC 1123 label of at most 63 characters"
        issues.append(ConfigIssue("--name", message, "a-z, 0-9 and '-', starting and ending with a letter or digit"))
    for count in COUNTS:
        value = getattr(args, count, None)
        if value is not None and not 1 <= value <= 100_000:
            flag = "--" + count.replace("_", "-")
            issues.append(ConfigIssue(flag, f"{value} is not a count from 1 to 100000", "1 or more"))
    return issues


def cmd_new(args: argparse.Namespace) -> int:
    if args.chips is not None and args.gpus is not None:
        raise ConfigError([ConfigIssue("--chips/--gpus", "give one of them", "--chips for TPUs, --gpus for GPUs")])
    if issues := flag_issues(args):
        raise ConfigError(issues)
    plans = selected_plans(args)
    if len(plans) != 1:
        raise ConfigError([ConfigIssue("--env", "name exactly one environment", [p.name for p in plans])])  # type: ignore[arg-type]
    request = WorkloadRequest(
        name=args.name,
        team=args.team,
        kind=args.kind,
        accelerator=args.accelerator,
        image=args.image,
        command=tuple(shlex.split(args.command)) if args.command else (),
        chips=args.chips if args.chips is not None else args.gpus,
        priority=args.priority,
        replicas=args.replicas,
        completions=args.completions,
        parallelism=args.parallelism,
        cpu=args.cpu,
        memory=args.memory,
        checkpoints=not args.no_checkpoints,
        port=args.port,
        slices=args.slices,
        nodes=args.nodes,
        elastic=args.elastic,
        flex_start=args.flex_start,
        weights=args.weights,
        weights_gib=args.weights_gib,
    )
    text = to_yaml(new_workload(plans[0], request))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "workload",
        "workload templates for a team",
        "gke-accel workload new --env dev --team nlp --accelerator v5e --image IMG",
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    n = add_command(
        verbs,
        "new",
        "generate a Job, JobSet or Deployment that lint and the API server accept",
        "gke-accel workload new --env dev --team nlp --accelerator v5e --image IMAGE > job.yaml",
        "gke-accel workload new --env dev --team nlp --accelerator l4 --image IMAGE | gke-accel lint --env dev -",
        "gke-accel workload new --env prod --team serving --accelerator t4 --kind deployment --image IMAGE --port 8000",
        details=(
            "The pool is chosen by accelerator (and --chips/--gpus); its node selectors and tolerations,\n"
            "the team's namespace, service account, priority class and queue label, the checkpoint bucket\n"
            "under the team's prefix and retries that survive a Spot reclaim come from the environment.\n"
            "Defaults fit the team: a priority class it may use, cpu and memory within its quota. A request\n"
            "the team's quota cannot hold is refused (exit 2) instead of written."
        ),
    )
    n.add_argument("--env", action="append", required=True, help="the environment (config/ENV.yaml)")
    n.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    n.add_argument("--team", required=True, help="a team of the environment (teams[].name)")
    n.add_argument(
        "--kind", choices=KINDS, help="job, jobset or deployment (default: jobset for a multi-host TPU slice, else job)"
    )
    n.add_argument("--accelerator", required=True, help="TPU generation or GPU model: v5e, v5p, l4, h100, ...")
    n.add_argument("--chips", type=int, help="TPU chips of the slice (default: the first slice shape)")
    n.add_argument("--gpus", type=int, help="GPUs per pod (default 1)")
    n.add_argument("--slices", type=int, default=1, help="jobset: TPU slices, one node pool each (multislice)")
    n.add_argument("--nodes", type=int, default=1, help="jobset: GPU nodes, one pod each, in one compact pool")
    n.add_argument("--elastic", action="store_true",
                   help="job: resizable while it runs (change spec.parallelism; Kueue workload slices)")  # fmt: skip
    n.add_argument("--flex-start", action="store_true",
                   help="deployment: may run on flex-start or queued-provisioning capacity (VMs GKE stops "
                        "after at most 7 days); without it a Deployment never does")  # fmt: skip
    n.add_argument("--image", required=True, help="container image (REGISTRY/REPO/IMAGE:TAG)")
    n.add_argument("--command", help="the container command, shell-quoted")
    n.add_argument("--name", default="train", help="name of the workload object (default: train)")
    n.add_argument(
        "--priority", help="priority class (default: training, or inference for a deployment, if the team may use it)"
    )
    n.add_argument("--replicas", type=int, default=1, help="deployment replicas")
    n.add_argument("--completions", type=int, default=1, help="job: runs to complete (a sweep, Indexed)")
    n.add_argument("--parallelism", type=int, default=1, help="job: runs at once")
    n.add_argument(
        "--cpu",
        help="cpu per pod (default: the pod's share of the node's allocatable cpu, less margins for GKE's "
        "DaemonSets and the GCS FUSE sidecar, within the team's quota; docs/workloads.md)",
    )
    n.add_argument(
        "--memory",
        help="memory per pod, e.g. 32Gi (default: the pod's share of the node's allocatable memory, less the "
        "same margins, within the team's quota)",
    )
    n.add_argument("--port", type=int, help="deployment: serving port (adds readiness/liveness probes)")
    n.add_argument("--no-checkpoints", action="store_true", help="do not mount the checkpoint bucket")
    n.add_argument("--weights", help="deployment: gs://BUCKET/PATH/ of the model weights, read-only at /weights")
    n.add_argument("--weights-gib", type=int, help="Hyperdisk ML weights volume size in GiB (teams using it)")
    n.add_argument("--out", help="write to this file instead of stdout")
    n.set_defaults(func=cmd_new)
