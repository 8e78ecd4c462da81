import torch


class RocketKVSparsePredictor:
    """RocketKV: stage-1 compressed keys predict the top-k pages, stage 2 reads them."""

    def __init__(self, kv_cache_manager, page_size, topk_pages, dtype=torch.bfloat16):
        self.kv_cache_manager = kv_cache_manager
        self.page_size = page_size
        self.topk_pages = topk_pages
        self.dtype = dtype

    def predict(self, q, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        keys = buf[:, 0].to(self.dtype)  # positive: f6 CL001 whole key plane of the manager layer
        summary = keys.abs().amax(dim=1)
        scores = torch.einsum("hd,nhd->n", q.to(self.dtype), summary)  # negative: query (the summary is already converted)
        return scores.topk(self.topk_pages).indices

    def gather(self, layer_idx, pages):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        return buf[pages].to(self.dtype)  # negative: predicted pages gathered first


class RocketKVAttention:
    def __init__(self, kv_cache_manager):
        self.predictor = RocketKVSparsePredictor(kv_cache_manager, 64, 32)

    def forward(self, q, k, v, attn_metadata, layer_idx):
        pages = self.predictor.predict(q, layer_idx)
        return self.predictor.gather(layer_idx, pages)
