"""XPU attention without FP8 paged kernels: impl.py calls dequant.py."""
