"""A local twin of an environment's scheduling stack (``gke-accel twin up``), and the e2e tier's harness.

The e2e tier (tests/e2e) and ``gke-accel twin`` / ``simulate`` share one code path: ``cluster`` (etcd,
kube-apiserver, kube-controller-manager, kube-scheduler, kwok on loopback), ``kueue`` and ``jobset``
(the real controllers with their webhooks registered by URL), ``nodes`` (fake GKE nodes from
``model/pools/node_shape``), ``environment`` (one shipped environment as its stack installs it).
Nothing here imports jsii: the stack's Helm releases are read from ``gke-accel synth`` run in a subprocess.
"""

from gke_accel.twin.local_twin import MissingTools, Twin, TwinError, read_twin, stop_twin

__all__ = ["MissingTools", "Twin", "TwinError", "read_twin", "stop_twin"]
