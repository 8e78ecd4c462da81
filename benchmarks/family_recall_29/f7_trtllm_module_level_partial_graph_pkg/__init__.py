"""TensorRT-LLM decode graph runner using a functools.partial built at import time in another module."""
