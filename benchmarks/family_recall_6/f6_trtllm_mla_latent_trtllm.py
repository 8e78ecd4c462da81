"""TRT-LLM MLA: get_buffers(layer_idx) holds [num_blocks, 1, tokens_per_block, kv_lora_rank + rope]."""
import torch


class MLAFallbackAttention:
    def __init__(self, layer_idx, kv_lora_rank, qk_rope_head_dim):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim

    def forward(self, q, compressed_kv, k_pe, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        flat = buf.squeeze(1)
        lat = flat[..., : self.kv_lora_rank].to(q.dtype)  # positive: f6 CL001 every token's latent part of the layer buffer
        whole = mgr.get_buffers(self.layer_idx).view(-1, self.kv_lora_rank + self.qk_rope_head_dim).to(q.dtype)  # positive: f6 CL001 the whole buffer, token-major
        ids = mgr.get_block_ids_per_seq(metadata.request_ids)
        used = buf[ids.flatten()].to(q.dtype)  # negative: blocks of the scheduled sequences
        ckv = compressed_kv.to(q.dtype)  # negative: the step's compressed kv
        ids32 = ids.to(torch.int32)  # negative: block ids
        return lat, whole, used, ckv, ids32
