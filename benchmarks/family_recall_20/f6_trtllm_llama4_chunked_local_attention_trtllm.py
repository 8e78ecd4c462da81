import torch


class Llama4ChunkedLocalAttention:
    """Llama 4 chunked local attention layers fall back to the torch path when KV is FP8."""

    def __init__(self, attention_chunk_size, kv_cache_manager, dtype=torch.bfloat16):
        self.attention_chunk_size = attention_chunk_size
        self.kv_cache_manager = kv_cache_manager
        self.dtype = dtype

    def forward(self, q, k, v, metadata, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        if metadata.is_chunked_local_layer[layer_idx]:
            chunk_blocks = metadata.chunked_block_ids
            local = buf[chunk_blocks].to(self.dtype)  # negative: the local chunk's blocks selected before the cast
            return local
        full = buf.to(self.dtype)  # positive: f6 CL001 global-attention layer without an FP8 kernel, whole layer converted
        k_new = k.to(self.dtype)  # negative: the step's new keys
        return full, k_new
