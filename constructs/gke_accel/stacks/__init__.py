"""Stacks: one Terraform stack per environment, composed from constructs. No logic of their own.

Part of the installed package (``gke-accel synth`` needs them); the repository's ``stacks/app.py`` is
only the entry point ``cdktf.json`` runs.
"""
