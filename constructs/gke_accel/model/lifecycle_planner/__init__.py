"""The lifecycle planner: derives each pool's role and its upgrade/maintenance settings (the
"posture" of ``lifecycle.posture`` in the config), checks them against GKE's limits and attaches
them to the pools (docs/lifecycle.md). Called by the environment root only (``hook.apply_lifecycle``).

Its vocabulary (the config shapes ``LifecycleSpec``/``PoolLifecycleSpec``, the planned
``LifecyclePlan``/``PoolLifecyclePlan`` and GKE's maintenance facts) is ``model/lifecycle/``, a
separate package because the pool and cluster specs and ``NodePoolPlan`` carry those shapes: the
planner reads pools and clusters, so one package holding both would be an import cycle
(tests/model/test_import_graph.py)."""
