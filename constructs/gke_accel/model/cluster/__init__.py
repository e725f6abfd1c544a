"""The cluster: config shapes, network/maintenance rules and the ClusterPlan."""
