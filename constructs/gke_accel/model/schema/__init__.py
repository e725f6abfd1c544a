"""The config schema and field reference, generated from the config dataclasses (no jsii)."""
