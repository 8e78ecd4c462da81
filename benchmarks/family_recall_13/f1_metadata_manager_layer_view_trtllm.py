import torch


class TrtllmGenFallbackAttention:
    def __init__(self, layer_idx, num_heads, head_dim, kv_lora_rank=None):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.kv_lora_rank = kv_lora_rank

    def forward(self, q, k, v, metadata, out_dtype=None, **kwargs):
        manager = metadata.kv_cache_manager
        if manager is None:
            return self._no_cache(q, k, v)
        layer_buf = manager.get_buffers(self.layer_idx)
        as_bf16 = layer_buf.to(torch.bfloat16)  # positive: f1 CL001 manager reached through the metadata
        block_ids = metadata.kv_cache_block_offsets.to(torch.int32)  # negative: block offsets
        seq = metadata.seq_lens_kv.to(torch.int32)  # negative: lengths
        return self._paged(q, as_bf16, block_ids, seq)

    def _no_cache(self, q, k, v):
        return q

    def _paged(self, q, kv, blocks, seq):
        return q
