"""The ``quota-now`` rule (real-engines W4g): with a live cluster, lint judges a workload against what
the team's ClusterQueue can still get beside what Kueue already admitted, and warns (Kueue queues the
workload; it is not refused). The ClusterQueues are written by hand as Kueue v0.19.2 stores them
(``apis/kueue/v1beta2/clusterqueue_types.go``: ``spec.cohortName``, ``resourceGroups[].flavors[].resources[]``
with ``nominalQuota``/``borrowingLimit``/``lendingLimit``; ``status.flavorsReservation`` and
``flavorsUsage`` with ``total``/``borrowed``); the expected numbers follow the semantics those fields
document (nominal + borrowingLimit at most, borrowing only from the cohort's unused lendable quota)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.cli.main import main
from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.workloads.lint import lint_texts
from gke_accel.workloads.lint.engine import LintReport
from helpers import base_config, to_yaml

Doc = dict[str, Any]
A100 = {"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"}
RESTRICTED = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
              "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}}  # fmt: skip


def config() -> Doc:
    data = base_config()
    data["gpu_pools"] = [{"name": "a100", "gpu": "a100-80gb", "gpus_per_node": 1, "max_nodes": 4,
                          "zones": ["us-central1-a"]}]  # fmt: skip
    data["teams"] = [{"name": t, "google_group": f"{t}@acme.example.com", "accelerators": {"a100-80gb": 2}}
                     for t in ("ml", "cv")]  # fmt: skip
    data["queues"] = {}
    return data


def env() -> EnvironmentPlan:
    return load_environment_text(to_yaml(config()), expected_name="test")


def job(pods: int) -> Doc:
    resources = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"nvidia.com/gpu": "1"}}
    container = {"name": "main", "image": "registry.k8s.io/pause:3.10", "securityContext": RESTRICTED,
                 "resources": resources}  # fmt: skip
    pod = {"restartPolicy": "Never", "nodeSelector": A100, "containers": [container]}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "train", "namespace": "ml", "labels": {"kueue.x-k8s.io/queue-name": "team"}},
            "spec": {"parallelism": pods, "completions": pods, "backoffLimit": 0,
                     "template": {"spec": pod}}}  # fmt: skip


def cluster_queue(name: str, nominal: str, used: str, borrowing: str | None = None, lending: str | None = None,
                  status_key: str = "flavorsReservation") -> Doc:  # fmt: skip
    gpu: Doc = {"name": "nvidia.com/gpu", "nominalQuota": nominal}
    if borrowing is not None:
        gpu["borrowingLimit"] = borrowing
    if lending is not None:
        gpu["lendingLimit"] = lending
    borrowed = max(0, int(used) - int(nominal))
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {"cohortName": "acme", "resourceGroups": [
            {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "a100-80gb", "resources": [gpu]}]}]},
        "status": {status_key: [{"name": "a100-80gb", "resources": [
            {"name": "nvidia.com/gpu", "total": used, "borrowed": str(borrowed)}]}],
            "pendingWorkloads": 0, "reservingWorkloads": 1, "admittedWorkloads": 1},
    }  # fmt: skip


def lint(pods: int, queues: list[Doc]) -> LintReport:
    return lint_texts(env(), [("job.yaml", to_yaml(job(pods)))], cluster_queues=queues)


def warnings(report: LintReport) -> list[str]:
    return [f.message for v in report.verdicts for f in v.findings if f.rule == "quota-now"]


def test_room_in_the_team_and_its_cohort_is_accepted_without_a_warning() -> None:
    report = lint(3, [cluster_queue("ml", "2", "0", borrowing="2"), cluster_queue("cv", "2", "0")])
    assert report.ok and not warnings(report), report.render()


def test_a_workload_beyond_what_the_team_can_get_now_is_a_warning_with_the_numbers() -> None:
    """ml holds 1 of its 2; cv holds its 2: the cohort has 1 unused, so ml can get 1 now, not 3."""
    report = lint(3, [cluster_queue("ml", "2", "1", borrowing="2"), cluster_queue("cv", "2", "2")])
    assert report.ok, report.render()  # Kueue queues it: still accepted
    [message] = warnings(report)
    assert "needs 3 nvidia.com/gpu of flavor a100-80gb" in message
    assert "can get 1 there now" in message
    assert "nominal 2, borrowable 2, in use 1; cohort acme has 1 unused" in message


def test_the_borrowing_limit_caps_what_the_cohort_could_lend() -> None:
    report = lint(3, [cluster_queue("ml", "2", "0", borrowing="0"), cluster_queue("cv", "2", "0")])
    [message] = warnings(report)
    assert "can get 2 there now" in message


def test_a_lending_limit_keeps_the_rest_of_a_members_quota_out_of_the_cohort() -> None:
    report = lint(3, [cluster_queue("ml", "2", "0"), cluster_queue("cv", "2", "0", lending="0")])
    [message] = warnings(report)
    assert "can get 2 there now" in message


def test_usage_is_read_where_kueue_writes_no_reservation() -> None:
    queues = [cluster_queue("ml", "2", "2", borrowing="2", status_key="flavorsUsage"), cluster_queue("cv", "2", "1")]
    [message] = warnings(lint(2, queues))
    assert "can get 1 there now" in message


def test_a_team_clusterqueue_missing_on_the_cluster_is_said() -> None:
    [message] = warnings(lint(1, [cluster_queue("cv", "2", "0")]))
    assert "ClusterQueue ml is not on the cluster" in message


# --- the command: reads the ClusterQueues through the kubeconfig ---


@pytest.fixture
def kueue_server() -> Iterator[tuple[int, list[Doc]]]:
    """An HTTP server on loopback answering the ClusterQueue list as the API server pages it."""
    queues: list[Doc] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if not self.path.startswith("/apis/kueue.x-k8s.io/v1beta2/clusterqueues"):
                self.send_error(404)
                return
            body = json.dumps({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueueList",
                               "metadata": {}, "items": queues}).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], queues
    finally:
        server.shutdown()
        server.server_close()


def _kubeconfig(path: Path, server: str) -> Path:
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": "not-a-secret"}}],
        "contexts": [{"name": "local", "context": {"cluster": "c", "user": "u"}}], "current-context": "local",
    }))  # fmt: skip
    return path


def _args(tmp_path: Path, kubeconfig: Path, pods: int) -> list[str]:
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "test.yaml").write_text(to_yaml(config()))
    (tmp_path / "job.yaml").write_text(to_yaml(job(pods)))
    return ["lint", "--env", "test", "--config-dir", str(tmp_path / "config"), "--kubeconfig", str(kubeconfig),
            str(tmp_path / "job.yaml")]  # fmt: skip


def test_lint_with_a_kubeconfig_warns_and_exits_0(
    kueue_server: tuple[int, list[Doc]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port, queues = kueue_server
    queues += [cluster_queue("ml", "2", "2", borrowing="2"), cluster_queue("cv", "2", "2")]
    code = main(_args(tmp_path, _kubeconfig(tmp_path / "kubeconfig", f"http://127.0.0.1:{port}"), 1))
    out = capsys.readouterr()
    assert code == 0, out
    assert "[quota-now]" in out.out and "can get 0 there now" in out.out
    assert "quota in use read from 2 ClusterQueue(s)" in out.err


def test_lint_with_a_cluster_it_cannot_read_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(_args(tmp_path, _kubeconfig(tmp_path / "kubeconfig", f"http://127.0.0.1:{port}"), 1))
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("error: cannot read the cluster: ") and "did not answer" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
