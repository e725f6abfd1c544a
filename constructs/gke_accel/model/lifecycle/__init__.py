"""Lifecycle posture: pool roles, upgrade/maintenance defaults per role, and their rules (docs/lifecycle.md)."""
