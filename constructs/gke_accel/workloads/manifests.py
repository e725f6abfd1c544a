"""User workloads as read from YAML: Pods, Jobs, JobSets, Deployments and StatefulSets, each reduced
to its pod templates (``PodGroup``) with how many pods of each run at once. Services are kept for the
multi-host checks (a headless Service for an Indexed Job's pods)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gke_accel.workloads._model import ConfigInputError, parse_config_documents

Obj = dict[str, Any]
WORKLOAD_KINDS = ("Pod", "Job", "JobSet", "Deployment", "StatefulSet")


@dataclass(frozen=True)
class PodGroup:
    """One pod template of a workload."""

    path: str  # field path of the pod template's spec, e.g. spec.template.spec
    spec: Obj  # the pod spec
    labels: dict[str, str]  # the pod template's labels
    pods: int  # pods of this template running at once
    job: Obj | None = None  # the Job spec around it (Job, JobSet replicated job)
    job_path: str = ""
    replicas: int = 1  # JobSet: copies of this replicated job (slices)
    annotations: dict[str, str] = field(default_factory=dict)  # the pod template's (GCS FUSE sidecar sizes)


@dataclass(frozen=True)
class Workload:
    kind: str
    name: str
    namespace: str | None
    labels: dict[str, str]
    obj: Obj
    source: str  # file#document
    groups: tuple[PodGroup, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class Documents:
    workloads: list[Workload] = field(default_factory=list)
    services: list[Obj] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # documents that are not workloads
    errors: list[str] = field(default_factory=list)  # documents that cannot be read


def as_dict(value: Any) -> Obj:
    """``value`` when it is a mapping, else an empty one (user YAML can hold anything)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


_dict = as_dict


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _template(template: Any) -> tuple[Obj, dict[str, str]]:
    t = _dict(template)
    labels = _dict(_dict(t.get("metadata")).get("labels"))
    return _dict(t.get("spec")), {str(k): str(v) for k, v in labels.items()}


def _annotations(template: Any) -> dict[str, str]:
    meta = _dict(_dict(template).get("metadata"))
    return {str(k): str(v) for k, v in _dict(meta.get("annotations")).items()}


def _job_group(job: Obj, path: str, replicas: int = 1) -> PodGroup:
    spec, labels = _template(job.get("template"))
    parallelism = _int(job.get("parallelism"), 1)
    completions = job.get("completions")
    running = min(parallelism, completions) if isinstance(completions, int) else parallelism
    return PodGroup(
        f"{path}.template.spec",
        spec,
        labels,
        running * replicas,
        job,
        path,
        replicas,
        _annotations(job.get("template")),
    )


def _groups(kind: str, obj: Obj) -> tuple[PodGroup, ...]:
    spec = _dict(obj.get("spec"))
    if kind == "Pod":
        labels = _dict(_dict(obj.get("metadata")).get("labels"))
        labels_s = {str(k): str(v) for k, v in labels.items()}
        return (PodGroup("spec", spec, labels_s, 1, annotations=_annotations(obj)),)
    if kind == "Job":
        return (_job_group(spec, "spec"),)
    if kind == "JobSet":
        groups = []
        for i, rj in enumerate(spec.get("replicatedJobs") or []):
            rj = _dict(rj)
            job = _dict(_dict(rj.get("template")).get("spec"))
            groups.append(_job_group(job, f"spec.replicatedJobs[{i}].template.spec", _int(rj.get("replicas"), 1)))
        return tuple(groups)
    pod, labels = _template(spec.get("template"))
    return (
        PodGroup(
            "spec.template.spec",
            pod,
            labels,
            _int(spec.get("replicas"), 1),
            annotations=_annotations(spec.get("template")),
        ),
    )


def read_documents(texts: list[tuple[str, str]]) -> Documents:
    """Parse (name, YAML text) pairs; every document becomes a workload, a service, or a note."""
    docs = Documents()
    for name, text in texts:
        try:  # the config reader's guards: alias and depth limits, duplicate keys, no tracebacks
            loaded = parse_config_documents(text)
        except ConfigInputError as err:
            for issue in err.issues:
                where = "" if issue.path == "(file)" else f" {issue.path}"
                docs.errors.append(f"{name}{where}: {issue.message.removeprefix('is ')}")
            continue
        for i, obj in enumerate(_flatten(loaded)):
            source = f"{name}#{i + 1}"
            if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
                docs.errors.append(f"{source}: not a Kubernetes object (no kind)")
                continue
            kind = obj["kind"]
            meta = _dict(obj.get("metadata"))
            if kind == "Service":
                docs.services.append(obj)
                continue
            if kind not in WORKLOAD_KINDS:
                docs.skipped.append(f"{source}: {kind}/{meta.get('name', '?')} is not a workload; not checked")
                continue
            ns = meta.get("namespace")
            docs.workloads.append(
                Workload(
                    kind=kind,
                    name=str(meta.get("name") or meta.get("generateName") or "?"),
                    namespace=str(ns) if ns else None,
                    labels={str(k): str(v) for k, v in _dict(meta.get("labels")).items()},
                    obj=obj,
                    source=source,
                    groups=_groups(kind, obj),
                )
            )
    return docs


def _flatten(objs: list[Any]) -> Iterator[Any]:
    for obj in objs:
        if obj is None:
            continue
        if isinstance(obj, dict) and obj.get("kind") == "List" and isinstance(obj.get("items"), list):
            yield from obj["items"]
        else:
            yield obj


def containers(pod: Obj) -> list[Obj]:
    return [_dict(c) for c in pod.get("containers") or []]


def init_containers(pod: Obj) -> list[Obj]:
    return [_dict(c) for c in pod.get("initContainers") or []]
