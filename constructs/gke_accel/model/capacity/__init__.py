"""The capacity ladder: one ordered list of ways to obtain an accelerator shape (reservation,
on-demand, flex-start, Spot, or named pools), from which the ComputeClass, the node pools' class
labels and the Kueue flavor order are all derived (docs/capacity.md)."""
