"""The ``gke-accel`` command line."""
