"""A staticmethod reader factory, overridden in one impl with a gathering reader."""
import torch


class CacheReader:
    def __init__(self, kv_cache):
        self.kv_cache = kv_cache

    def planes(self):
        return self.kv_cache.unbind(0)


class TableReader(CacheReader):
    def __init__(self, kv_cache, block_table):
        super().__init__(kv_cache)
        self.block_table = block_table

    def planes(self):
        k, v = self.kv_cache.unbind(0)
        return k[self.block_table], v[self.block_table]


class ReaderImplBase:
    @staticmethod
    def make_reader(kv_cache, attn_metadata):
        return CacheReader(kv_cache)


class DenseImpl(ReaderImplBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_all, v_all = self.make_reader(kv_cache, attn_metadata).planes()
        return k_all.to(query.dtype), v_all  # positive: f2 CL001 K plane from the inherited staticmethod factory


class TableImpl(ReaderImplBase):
    @staticmethod
    def make_reader(kv_cache, attn_metadata):
        return TableReader(kv_cache, attn_metadata.block_table)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_rows, v_rows = self.make_reader(kv_cache, attn_metadata).planes()
        base_k, base_v = ReaderImplBase.make_reader(kv_cache, attn_metadata).planes()
        v_up = base_v.half()  # positive: f2 CL001 V plane from the base factory called by class name
        return k_rows.to(query.dtype), v_up  # negative: overriding factory gathers the step's blocks
