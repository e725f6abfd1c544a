"""In-cluster platform: teams, quotas, priority classes, driver installer, manifests."""
