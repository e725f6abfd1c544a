"""Shared leaf of the model: errors, the generic parser, name rules."""
