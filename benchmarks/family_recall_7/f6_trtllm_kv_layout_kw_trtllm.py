"""f6: TRT-LLM get_buffers(layer_idx, kv_layout=...) keyword form, against reinterprets and integer fields."""
import torch


class LayoutAttention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, attention_mask=None):
        mgr = metadata.kv_cache_manager
        hnd = mgr.get_buffers(self.layer_idx, kv_layout="HND")
        dense = hnd.float()  # positive: f6 CL001 whole layer in HND layout
        nhd = mgr.get_buffers(layer_idx=self.layer_idx, kv_layout="NHD")[:, 1].to(q.dtype)  # positive: f6 CL001 V of every block, keyword form
        raw = hnd.view(torch.uint8)  # negative: reinterpret
        tpb = mgr.tokens_per_block  # negative: an int
        lens = metadata.kv_lens_cuda.to(torch.int32)  # negative: lengths
        return dense, nhd, raw, tpb, lens
