"""f7: an lmdeploy-style cache engine (engine.py), an ABC reader base (base.py) and an impl (impl.py)."""
from .engine import CacheEngineLite
from .impl import ReaderAttention
