"""BVSS bitmap format (Blest): container, builders, reorderings, kernels."""
