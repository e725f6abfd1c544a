"""Accelerator node pools: config shapes, topology, consumption and derived NodePoolPlans."""
