"""The twin's certificates (a CA, the API server's serving certificate, an admin client certificate,
the service-account key pair; made with openssl, valid two days) and its kubeconfigs."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_pki(pki: Path) -> None:
    """CA, API server serving cert (127.0.0.1/localhost), admin client cert (system:masters), SA key pair."""
    pki.mkdir(parents=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=gke-accel-e2e-ca",
             "-keyout", "ca.key", "-out", "ca.crt", cwd=pki)  # fmt: skip
    (pki / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n")
    for name, subj, ext in (
        ("apiserver", "/CN=kube-apiserver", ["-extfile", "san.ext"]),
        ("admin", "/O=system:masters/CN=e2e-admin", []),
    ):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subj, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 cwd=pki)  # fmt: skip
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-out", f"{name}.crt", *ext, cwd=pki)  # fmt: skip
    openssl("genrsa", "-out", "sa.key", "2048", cwd=pki)
    openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=pki)


def kubeconfig_dict(
    server: str, pki: Path, impersonate: str | None = None, groups: Sequence[str] = ()
) -> dict[str, Any]:
    user: dict[str, Any] = {"client-certificate": str(pki / "admin.crt"), "client-key": str(pki / "admin.key")}
    if impersonate:
        user["as"] = impersonate
        if groups:
            user["as-groups"] = list(groups)
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "e2e", "cluster": {"server": server, "certificate-authority": str(pki / "ca.crt")}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "u"}}],
        "current-context": "e2e",
    }
