"""Admission webhooks of out-of-cluster controllers (Kueue, JobSet), registered with the local API server by URL.

On GKE the Kueue and JobSet Helm charts register their webhooks as ``clientConfig.service`` (a Service in
front of the controller's pod) with a CA bundle. Here the controllers run on the host, so the harness:

    ca = WebhookCA(state / "webhook-ca")              # one CA per run, private key in the state dir
    ca.serving_cert(certs_dir)                        # tls.crt/tls.key for 127.0.0.1, signed by that CA
    objs = by_url(kustomized_webhooks(component_dir), port, ca.bundle, prefix="kueue")
    register(cluster, objs); unregister(cluster, objs)

``kustomized_webhooks`` reads the release's own ``config/components/webhook`` folder (``manifests.yaml``
plus the patches and ``replacements`` its ``kustomization.yaml`` applies: Kueue's namespace selectors excluding
kube-system and kueue-system (from 0.19 one patch on ``vpod.kb.io`` copied to every job webhook by a replacement),
JobSet's pod-webhook object selector), so the rules, failure policies and selectors are the
release's, only the client config differs (a URL on loopback instead of a Service).
"""

from __future__ import annotations

import base64
import copy
import socket
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from gke_accel.twin.cluster import LocalCluster

Obj = dict[str, Any]
KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


class WebhookCA:
    """A CA made for this run; the API server trusts it through each webhook's ``caBundle``."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        directory.mkdir(parents=True, exist_ok=True)
        if not (directory / "ca.crt").exists():
            _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=gke-accel-webhook-ca",
                     "-keyout", "ca.key", "-out", "ca.crt", cwd=directory)  # fmt: skip

    @property
    def bundle(self) -> str:
        """``caBundle``: the CA certificate, PEM, base64."""
        return base64.b64encode((self.dir / "ca.crt").read_bytes()).decode()

    def serving_cert(self, directory: Path, cert: str = "tls.crt", key: str = "tls.key") -> Path:
        """A serving certificate for 127.0.0.1 (the webhook URL's host) signed by this CA."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", "tls.csr",
                 cwd=directory)  # fmt: skip
        _openssl("x509", "-req", "-in", "tls.csr", "-CA", str(self.dir / "ca.crt"), "-CAkey", str(self.dir / "ca.key"),
                 "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", cert, cwd=directory)  # fmt: skip
        return directory


def _merge_by_name(obj: Obj, patch: Mapping[str, Any]) -> None:
    """A strategic-merge patch of a webhook configuration: ``webhooks`` merge by ``name``."""
    by_name = {w["name"]: w for w in obj["webhooks"]}
    for change in patch.get("webhooks", []):
        target = by_name[change["name"]]  # KeyError: the release's patch names a webhook its manifest lacks
        target.update(copy.deepcopy(change))


def _json_patch(obj: Obj, ops: Sequence[Mapping[str, Any]]) -> None:
    """The JSON-6902 operations the releases use (``replace``/``add`` of ``/webhooks/N``)."""
    for op in ops:
        parts = op["path"].strip("/").split("/")
        if op["op"] not in ("replace", "add") or parts[0] != "webhooks" or len(parts) != 2:
            raise ValueError(f"unsupported webhook patch {op}")
        index = int(parts[1])
        if op["op"] == "replace":
            obj["webhooks"][index] = copy.deepcopy(op["value"])
        else:
            obj["webhooks"].insert(index, copy.deepcopy(op["value"]))


def _webhook_field(path: str) -> tuple[str, str]:
    """``webhooks.[name=X].field`` (kustomize's replacement field path) -> (X, field)."""
    head, _, rest = path.partition(".[name=")
    name, _, field = rest.partition("].")
    if head != "webhooks" or not name or not field or "." in field:
        raise ValueError(f"unsupported replacement field path {path!r}")
    return name, field


def _replace(objs: list[Obj], replacement: Mapping[str, Any]) -> None:
    """One kustomize replacement between webhook configurations: the source webhook's field copied to each
    target webhook (``options.create``: only where that webhook exists in the manifest; kustomize would add
    an empty entry for a missing name, which the API server refuses, and the releases only list their own)."""
    source = replacement["source"]
    [src] = [o for o in objs if o["kind"] == source["kind"] and o["metadata"]["name"] == source["name"]]
    name, field = _webhook_field(source["fieldPath"])
    [hook] = [w for w in src["webhooks"] if w["name"] == name]
    value = hook[field]
    for target in replacement["targets"]:
        select = target["select"]
        [obj] = [o for o in objs if o["kind"] == select["kind"] and o["metadata"]["name"] == select["name"]]
        by_name = {w["name"]: w for w in obj["webhooks"]}
        for path in target["fieldPaths"]:
            target_name, target_field = _webhook_field(path)
            if target_name in by_name:
                by_name[target_name][target_field] = copy.deepcopy(value)


def kustomized_webhooks(component: Path) -> list[Obj]:
    """The webhook configurations of ``component`` (a release's ``config/components/webhook``) with the
    patches of its ``kustomization.yaml`` applied."""
    objs = [d for d in yaml.safe_load_all((component / "manifests.yaml").read_text()) if d and d["kind"] in KINDS]
    kustomization = yaml.safe_load((component / "kustomization.yaml").read_text()) or {}
    for entry in kustomization.get("patches", []):
        body = yaml.safe_load(entry["patch"] if "patch" in entry else (component / entry["path"]).read_text())
        if isinstance(body, list):  # JSON 6902, addressed by target
            target = entry["target"]
            [obj] = [o for o in objs if o["kind"] == target["kind"] and o["metadata"]["name"] == target["name"]]
            _json_patch(obj, body)
        else:  # strategic merge, addressed by kind and name
            [obj] = [o for o in objs if o["kind"] == body["kind"] and o["metadata"]["name"] == body["metadata"]["name"]]
            _merge_by_name(obj, body)
    for replacement in kustomization.get("replacements", []):
        _replace(objs, replacement)
    return objs


def by_url(objs: Iterable[Mapping[str, Any]], port: int, ca_bundle: str, prefix: str) -> list[Obj]:
    """The configurations with every webhook's ``clientConfig`` pointing at ``https://127.0.0.1:port<path>``
    and the objects named ``<prefix>-<name>`` (as the Helm charts name them, so two releases do not clash)."""
    out = []
    for obj in objs:
        new = copy.deepcopy(dict(obj))
        new["metadata"] = {"name": f"{prefix}-{obj['metadata']['name']}"}
        for hook in new["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca_bundle}
        out.append(new)
    return out


def register(cluster: LocalCluster, objs: Sequence[Mapping[str, Any]]) -> None:
    cluster.apply(objs, "--server-side", "--force-conflicts")


def unregister(cluster: LocalCluster, objs: Sequence[Mapping[str, Any]]) -> None:
    for obj in objs:
        cluster.kubectl("delete", obj["kind"].lower(), obj["metadata"]["name"], "--ignore-not-found", check=False)


def wait_listening(port: int, timeout: float = 60.0, alive: Any = None) -> None:
    """Until something accepts TCP connections on 127.0.0.1:port (``alive()`` raising stops early)."""
    deadline = time.monotonic() + timeout
    while True:
        if alive is not None:
            alive()
        with socket.socket() as s:
            s.settimeout(1)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout:.0f} s")
        time.sleep(0.3)
