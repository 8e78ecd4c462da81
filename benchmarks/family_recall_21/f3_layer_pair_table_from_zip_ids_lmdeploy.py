import torch


class MigrationPacker:
    """PD migration: pack layer caches for a fp16 receiver."""

    def __init__(self, cache_engine, layer_ids):
        k_caches = [kv[0] for kv in cache_engine.gpu_cache]
        v_caches = [kv[1] for kv in cache_engine.gpu_cache]
        self.table = dict(zip(layer_ids, zip(k_caches, v_caches)))
        self.recv_dtype = torch.float16

    def pack_layer(self, layer_id):
        k_cache, v_cache = self.table[layer_id]
        return torch.stack((k_cache, v_cache)).to(self.recv_dtype)  # positive: f3 CL001 both whole caches of the layer

    def pack_blocks(self, layer_id, block_ids):
        k_cache, v_cache = self.table[layer_id]
        return torch.stack((k_cache[block_ids], v_cache[block_ids])).to(self.recv_dtype)  # negative: blocks first


class MigrationEngine:
    def __init__(self, cache_engine, layer_ids):
        self.packer = MigrationPacker(cache_engine, layer_ids)

    async def _async_model_forward(self, inputs, block_ids, full: bool):
        ids = list(self.packer.table)
        if full:
            return [self.packer.pack_layer(i) for i in ids]
        return [self.packer.pack_blocks(i, block_ids) for i in ids]
