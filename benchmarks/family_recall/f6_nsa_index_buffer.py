"""Sparse-attention indexer pool (defined here) with an FP8 index-K buffer plus scales."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.quantization.fp8_kernel import dequantize_kv_tensor


class IndexerKPool:
    def __init__(self, size, page_size, index_head_dim, layer_num, start_layer=0):
        self.page_size = page_size
        self.start_layer = start_layer
        self.index_k_with_scale = [
            torch.zeros((size // page_size + 1, page_size * (index_head_dim + 4)), dtype=torch.uint8, device="cuda")
            for _ in range(layer_num)
        ]
        self.index_scale = [torch.ones((size // page_size + 1,), dtype=torch.float32, device="cuda") for _ in range(layer_num)]

    def index_k_buf(self, layer_id):
        return self.index_k_with_scale[layer_id - self.start_layer]

    def index_scale_buf(self, layer_id):
        return self.index_scale[layer_id - self.start_layer]


class IndexerBackend(AttentionBackend):
    def __init__(self, pool: IndexerKPool):
        super().__init__()
        self.pool = pool

    def score(self, q_index, layer, forward_batch):
        buf = self.pool.index_k_buf(layer.layer_id).view(torch.float8_e4m3fn)  # negative: dtype view
        k_all = dequantize_kv_tensor(buf, self.pool.index_scale_buf(layer.layer_id), torch.bfloat16)  # positive: f6 CL004 dequant helper on the whole index buffer
        pages = forward_batch.page_table
        k_pages = dequantize_kv_tensor(buf[pages], self.pool.index_scale_buf(layer.layer_id)[pages], torch.bfloat16)  # negative: dequantizes gathered pages
        return q_index @ k_all.transpose(-1, -2), k_pages
