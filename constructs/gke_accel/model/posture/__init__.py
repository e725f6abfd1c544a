"""Lifecycle posture: pool roles, upgrade/maintenance defaults per role, and their rules
(docs/lifecycle.md). The shapes it fills (``LifecycleSpec``, ``LifecyclePlan``) and GKE's limits are
in ``model/lifecycle/``, which pools and the cluster import; this package reads the environment's spec
through ``LifecycleConfig`` and is called by the environment root only."""
