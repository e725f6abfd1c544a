"""The lifecycle shapes: a pool's role and upgrade settings as configured (``spec.py``) and as planned
(``plan.py``), and GKE's maintenance limits (``gke_facts.py``). Planned by ``model/posture/``."""
