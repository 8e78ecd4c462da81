"""Double-sparsity pool (defined here) with heavy-channel label buffers."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ChannelLabelKVPool:
    def __init__(self, size, dtype, head_num, head_dim, layer_num, heavy_channel_num, start_layer=0, device="cuda"):
        self.dtype = dtype
        self.start_layer = start_layer
        self.k_buffer = [torch.empty((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.empty((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.label_buffer = [torch.empty((size + 1, head_num, heavy_channel_num), dtype=dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id - self.start_layer]

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id - self.start_layer]

    def get_label_buffer(self, layer_id):
        return self.label_buffer[layer_id - self.start_layer]

    def set_kv_buffer(self, layer, loc, cache_k, cache_v, cache_label):
        lid = layer.layer_id - self.start_layer
        self.k_buffer[lid][loc] = cache_k.to(self.dtype)  # negative: new tokens cast to store dtype
        self.v_buffer[lid][loc] = cache_v.to(self.dtype)  # negative: new tokens cast to store dtype
        self.label_buffer[lid][loc] = cache_label.to(self.dtype)  # negative: new labels cast to store dtype


class DoubleSparsityLikeBackend(AttentionBackend):
    def __init__(self, pool: ChannelLabelKVPool):
        super().__init__()
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        labels = self.pool.get_label_buffer(layer.layer_id).to(torch.float32)  # positive: f6 CL001 label buffer accessor
        k_cache = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 file-defined pool accessor
        scores = torch.einsum("bhc,nhc->bhn", q[..., :labels.shape[-1]].float(), labels)  # negative: q slice is a batch tensor
        return scores, k_cache

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        topk_loc = forward_batch.out_cache_loc
        heavy = self.pool.get_label_buffer(layer.layer_id)[topk_loc].float()  # negative: gather of selected tokens first
        return heavy
