"""A team as one unit: TeamSpec -> TeamPlan (namespace, quotas, RBAC, identity, its queue) and its manifests."""
