from .base import PoolReadingBackend, read_whole_values
from .flash import FlashLikeBackend
