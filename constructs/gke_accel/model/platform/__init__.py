"""In-cluster platform: priority classes, the Kueue priority fence, the driver installer, team and capacity rules."""
