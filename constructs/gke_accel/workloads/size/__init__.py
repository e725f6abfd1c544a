"""``gke-accel size``: the memory a model needs, and the smallest slice or GPU count that holds it."""
