"""lmdeploy-style agent.py picks a dequant function from kernels_fallback.py by name (getattr on the module)."""
