"""A frozen KVConfig dataclass (config.py) drives a pool factory (pool.py); backend.py reads the pool."""
