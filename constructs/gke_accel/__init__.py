"""gke-accel: GKE clusters for Cloud TPUs and NVIDIA GPUs, as typed, validated cdktf code."""

__version__ = "0.1.0"
