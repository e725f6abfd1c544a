"""Composition root: the environment spec, loading, plan and cross-capability rules."""
