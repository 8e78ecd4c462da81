"""lmdeploy dlinfer-style agent: device kernels module chosen at runtime with importlib."""
