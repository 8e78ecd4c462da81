"""A Runtime class attribute in state.py, set by executor.py, read by attention.py (TRT-LLM)."""
