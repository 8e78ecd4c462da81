"""TensorRT-LLM sparse attention (DSA): the lightning indexer's FP8 K cache is a pool too;
without the FP8 indexer kernel the fallback dequantizes the whole layer each step."""
import torch


class IndexerFallback:
    def __init__(self, layer_idx, head_dim=128):
        self.layer_idx = layer_idx
        self.head_dim = head_dim

    def forward(self, q_idx, weights, metadata):
        mgr = metadata.kv_cache_manager
        k_cache = mgr.get_indexer_k_cache_buffers(self.layer_idx)
        k_fp8 = k_cache[..., : self.head_dim]
        k_scale = k_cache[..., self.head_dim :].view(torch.float32)  # negative: reinterpreted scale bytes
        k_dense = k_fp8.view(torch.float8_e4m3fn).to(torch.bfloat16) * k_scale  # positive: f6 CL001 whole indexer cache layer, last-dim slice
        topk_blocks = metadata.indexer_block_table[:, :8]
        k_sel = k_fp8[topk_blocks].view(torch.float8_e4m3fn).to(torch.bfloat16)  # negative: selected blocks
        scores = torch.einsum("bhd,nd->bhn", q_idx, k_dense.flatten(0, -2)) * weights
        return scores, k_sel
