"""Alerts, dashboard, quota preferences, budget and the cost model."""
