import torch


class FallbackAttentionMetadata:
    def __init__(self, kv_cache_manager, request_ids):
        self.kv_cache_manager = kv_cache_manager
        self.request_ids = request_ids

    def prepare(self):
        mgr = self.kv_cache_manager
        self.layer_buffers = mgr.get_buffers  # the bound accessor, stored under another name
        ids = mgr.get_batch_cache_indices(self.request_ids)
        self.block_ids = torch.tensor([b for seq in ids for b in seq], dtype=torch.long)


class SM75Attention:
    compute_dtype = torch.float16

    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward_generation(self, q, metadata):
        buf = metadata.layer_buffers(self.layer_idx)
        if buf.dtype == torch.float8_e4m3fn:
            kv = buf.to(self.compute_dtype)  # positive: f1 CL001 every block of the layer through the stored bound get_buffers
        else:
            kv = buf[metadata.block_ids].to(self.compute_dtype)  # negative: blocks of the batch
        raw = buf.view(torch.uint8)  # negative: reinterpret, zero-copy
        return self._sdpa_paged(q.to(self.compute_dtype), kv, raw, metadata)  # negative: the query
