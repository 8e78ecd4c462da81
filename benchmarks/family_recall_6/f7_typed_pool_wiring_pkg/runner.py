import torch

from .backend import TypedBackend
from .pools import ChunkedKVPool


class MiniRunner:
    def __init__(self, size, heads, dim, layers):
        self.pool = ChunkedKVPool(size, heads, dim, layers, torch.float8_e4m3fn)
        self.attn_backend = TypedBackend(self.pool)
