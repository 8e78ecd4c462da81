import torch


class SpecPickBackend:
    def __init__(self, target_pool, draft_pool, dtype):
        self.target_pool = target_pool
        self.draft_pool = draft_pool
        self.dtype = dtype

    def _pool(self, forward_batch):
        return self.draft_pool if forward_batch.forward_mode.is_draft_extend() else self.target_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self._pool(forward_batch)
        lat = pool.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f4 CL001 either pool's whole layer
        return lat

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = (self.target_pool if layer.layer_id >= 0 else self.draft_pool).get_key_buffer(layer.layer_id)
        up = buf.bfloat16()  # positive: f4 CL001 conditional expression picks a pool
        src = forward_batch.out_cache_loc if forward_batch.out_cache_loc is not None else forward_batch.seq_lens
        idx = src.to(torch.int64)  # negative: indices either way
        return up, idx
