"""Pull-request plan review: synthesize the head and a base revision, compare stack by stack, and
report resource changes (with replacements), accelerator capacity, team quotas, cost and policy.

Kept free of imports so that ``_worker.py`` can load the package under a private name.
Entry points: ``gke_accel.review.compare`` (review_config_dirs, review_git), ``render`` (Markdown, JSON).
"""
