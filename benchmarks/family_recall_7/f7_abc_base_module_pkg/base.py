import abc

from .engine import CacheEngineLite


class CacheReaderBase(abc.ABC):
    def __init__(self, engine: CacheEngineLite, layer_idx: int):
        self.engine = engine
        self.layer_idx = layer_idx

    def whole_k(self):
        return self.engine.gpu_cache[self.layer_idx][0]

    def blocks_v(self, block_offsets):
        return self.engine.gpu_cache[self.layer_idx][1][block_offsets]

    @abc.abstractmethod
    def forward(self, query, key, value, attn_metadata):
        ...
