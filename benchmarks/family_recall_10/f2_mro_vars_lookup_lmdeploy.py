"""The reader is found by walking type(self).__mro__ and reading the first class dict that has it."""
import torch


class CacheReaderBase:
    def read(self, idx):
        return self.engine.gpu_cache[idx]


class TailReader(CacheReaderBase):
    def read(self, idx):
        k, v = self.engine.gpu_cache[idx]
        return k[-16:], v[-16:]


class MroAttention(TailReader):
    def __init__(self, engine, idx):
        self.engine = engine
        self.idx = idx

    def _lookup(self, owner):
        for cls in type(self).__mro__:
            if cls is owner and "read" in vars(cls):
                return vars(cls)["read"]
        raise LookupError(owner)

    def forward(self, query, key, value, attn_metadata):
        base_read = self._lookup(CacheReaderBase)
        k_cache, v_cache = base_read(self, self.idx)
        k = k_cache.to(query.dtype)  # positive: f2 CL001 base reader picked from the MRO, whole K cache
        tk, tv = self.read(self.idx)
        tail = tk.to(query.dtype)  # negative: the override keeps the last 16 blocks
        return k, v_cache, tail
