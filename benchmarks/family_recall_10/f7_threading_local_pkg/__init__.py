"""TRT-LLM style: local.py keeps the KV manager in a threading.local; executor.py sets it; attention.py reads it."""
