"""state.py caches the pool behind an lru_cache'd getter; runner.py sets it; attn.py reads it per step."""
