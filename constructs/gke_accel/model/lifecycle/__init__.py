"""The lifecycle vocabulary: a pool's role and upgrade settings as configured (``spec.py``) and as
planned (``plan.py``), and GKE's maintenance limits (``gke_facts.py``); pool and cluster specs carry
these shapes. Planned by ``model/lifecycle_planner/``."""
