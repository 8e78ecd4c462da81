from .cache_engine import CacheEngine
from .attention import EngineAttention
