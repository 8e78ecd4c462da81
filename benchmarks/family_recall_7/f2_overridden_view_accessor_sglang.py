"""f2: an FP8 pool overrides layer_store() with a reinterpreting view of the base's whole layer."""
import torch


class ByteArenaPool:
    def __init__(self, size, layer_num, device, start_layer=0):
        self.start_layer = start_layer
        self._buf = [torch.zeros((size + 1, 1, 576), dtype=torch.uint8, device=device) for _ in range(layer_num)]

    def layer_store(self, layer_id):
        return self._buf[layer_id - self.start_layer]


class FP8ArenaPool(ByteArenaPool):
    def layer_store(self, layer_id):
        return super().layer_store(layer_id).view(torch.float8_e4m3fn)  # negative: zero-copy reinterpret


class LatentFP8ArenaPool(FP8ArenaPool):
    kv_lora_rank = 512


class SubsetArenaPool(FP8ArenaPool):
    def layer_store(self, layer_id, loc=None):
        return super().layer_store(layer_id)[loc]


class ArenaBackend:
    def __init__(self, pool: LatentFP8ArenaPool, subset: SubsetArenaPool, dtype):
        self.pool = pool
        self.subset = subset
        self.dtype = dtype

    def forward_decode(self, q, layer, forward_batch):
        whole = self.pool.layer_store(layer.layer_id).to(torch.bfloat16)  # positive: f2 CL001 inherited override keeps the whole layer
        latent = self.pool.layer_store(layer.layer_id)[..., : self.pool.kv_lora_rank].float()  # positive: f2 CL001 latent of every token
        rows = self.subset.layer_store(layer.layer_id, forward_batch.out_cache_loc).to(self.dtype)  # negative: override gathers rows
        return whole, latent, rows
