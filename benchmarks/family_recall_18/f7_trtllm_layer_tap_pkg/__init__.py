"""TensorRT-LLM-style package: executor.py mirrors layers through generators in layer_tap.py."""
