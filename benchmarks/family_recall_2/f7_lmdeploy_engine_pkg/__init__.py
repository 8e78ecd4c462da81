from .cache_engine import MiniCacheEngine
from .records import CacheRecord
