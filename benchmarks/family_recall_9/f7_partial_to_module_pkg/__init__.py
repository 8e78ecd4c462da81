"""functools.partial(torch.Tensor.to, dtype=...) defined in access.py, called in impl.py (vLLM)."""
