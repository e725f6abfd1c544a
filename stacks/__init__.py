"""Stacks: one Terraform stack per environment, composed from constructs. No logic of their own."""
