import torch


class StoreAttention:
    def __init__(self, store, layer_idx):
        self.store = store
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        dense = self.store.layer_compute(self.layer_idx)  # note: per-step caller of the CL004 accessor
        raw = self.store.layer(self.layer_idx)
        if metadata.fallback:
            raw = raw.to(q.dtype)  # positive: f7 CL001 raw whole layer from the store, converted in the attention module
        ids = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        return dense, raw, torch.tensor(ids).to(torch.int32)  # negative: cache indices
