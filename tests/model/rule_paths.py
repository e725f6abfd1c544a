"""Config paths and a team the rule cases of the ``test_rules_*.py`` modules share."""

from __future__ import annotations

TPU = "tpu_pools[0]"
GPU = "gpu_pools[0]"
TEAM = "teams[0]"
ONE_TEAM = {"name": "nlp", "google_group": "ml-nlp@acme.example.com", "accelerators": {"l4": 1, "v5e": 4}}
TEAMS = {"teams": [ONE_TEAM]}
