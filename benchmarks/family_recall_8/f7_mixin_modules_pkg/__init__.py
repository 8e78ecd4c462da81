from .pool import CheckedPool
from .backend import MixinBackend
