"""Storage for checkpoints and weights, and what makes a restarted slice start fast: the checkpoint
bucket's options, the GCS FUSE mount of generated workloads, checkpoint sizing, image streaming and
image preloading. docs/storage.md."""
