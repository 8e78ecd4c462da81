"""lmdeploy MetaX MACA backend: per-layer reader closures made by a factory inside an __init__ loop."""
import torch


class MacaPagedDecode:
    def __init__(self, cache_engine, dtype):
        self.readers = []
        for i in range(cache_engine.num_layers):
            self.readers.append(self._make_readers(cache_engine, i, dtype))

    @staticmethod
    def _make_readers(cache_engine, i, dtype):
        def read():
            k, v = cache_engine.gpu_cache[i]
            return k.to(dtype), v.to(dtype)  # positive: f4 CL001 whole caches of layer i captured by the closure (one finding)

        def read_blocks(block_offsets):
            k, v = cache_engine.gpu_cache[i]
            return k[block_offsets].to(dtype), v[block_offsets].to(dtype)  # negative: blocks gathered first

        return read, read_blocks

    def forward(self, query, layer_idx, attn_metadata):
        read, read_blocks = self.readers[layer_idx]
        if attn_metadata.is_decoding:
            k, v = read()
        else:
            k, v = read_blocks(attn_metadata.block_offsets)
        return torch.ops.maca.paged_attention(query, k, v, attn_metadata.kv_seqlens.to(torch.int32))
