"""The cdktf entry point of this repository (not installed): ``python -m stacks.app``."""
